import { DataError } from '../core/errors.ts';
import type { Experience } from '../core/experience.ts';
import { alignTokenArrays } from '../core/token-alignment.ts';
import { EOS_ID, encodeText, VOCAB_SIZE } from './vocab.ts';

/** How per-token losses are averaged into the batch loss. */
export type LossAggregation = 'token-mean' | 'seq-mean-token-mean' | 'seq-mean-token-sum';

/**
 * A batch of experiences laid out for a teacher-forced pass: row b holds tokens[0..T-1] of
 * sequence b (left-aligned, PAD after), and prediction slot (b, t) is the model's guess for
 * token t+1 after reading tokens 0..t. Everything the loss needs is a flat [B·S] array over
 * those slots, with S = T − 1.
 */
export interface PackedBatch {
  batch: number;
  /** Prediction steps per row (max sequence length − 1). */
  steps: number;
  /** Input token ids [B·S]. */
  inputs: Int32Array;
  /** Target token ids [B·S] (0 where unused). */
  targets: Int32Array;
  /** 1 where the target is an action token that is trained on (policy-gradient or SFT). */
  action: Float32Array;
  /** 1 on the action slots of expert rows (trained by SFT, not by the policy gradient). */
  expert: Float32Array;
  /** Old (behaviour) log-probability of the target, where known. */
  oldLogprob: Float32Array;
  /** 1 where oldLogprob is known; action slots without one are treated as on-policy (ratio 1). */
  hasOld: Float32Array;
  /** 1 on policy-gradient slots of replayed rows (`useCount > 1`) that carry a behaviour log-prob. */
  offPolicy: Float32Array;
  /** Advantage of the target token. */
  advantage: Float32Array;
  /** Policy-gradient aggregation weight of each slot (non-expert rows): that part is Σ weight·(per-token loss). */
  weight: Float32Array;
  /** SFT aggregation weight of each slot (expert rows): that part is Σ sftWeight·(−log π). */
  sftWeight: Float32Array;
  /** Number of action tokens in the batch (both parts). */
  actionTokens: number;
  /** Number of sequences with at least one action token (both parts). */
  activeSequences: number;
  /** Action tokens and sequences of expert rows. */
  expertTokens: number;
  expertSequences: number;
}

/** The fields of an experience the packer reads. */
export type PackableExperience = Pick<
  Experience,
  'id' | 'tokens' | 'promptLength' | 'logprobs' | 'actionMask' | 'advantage' | 'response' | 'truncated'
> &
  Partial<Pick<Experience, 'advantages' | 'prompt' | 'expert' | 'useCount'>>;

function where(e: PackableExperience, i: number): string {
  return `experience ${i} (id ${e.id})`;
}

/** Token ids of an experience: its own, or the tiny vocabulary's encoding of prompt + response (+ EOS). */
function sequenceOf(
  e: PackableExperience,
  i: number,
): { tokens: number[]; promptLength: number; encoded: boolean } {
  if (e.tokens.length > 0) {
    if (e.promptLength < 1 || e.promptLength > e.tokens.length) {
      throw new DataError({
        message: `${where(e, i)}: promptLength ${e.promptLength} must be in [1, ${e.tokens.length}] (tokens.length)`,
      });
    }
    for (const t of e.tokens) {
      if (!Number.isInteger(t) || t < 0 || t >= VOCAB_SIZE) {
        throw new DataError({
          message: `${where(e, i)}: token id ${t} is outside the tiny policy's vocabulary [0, ${VOCAB_SIZE})`,
        });
      }
    }
    return { tokens: e.tokens, promptLength: e.promptLength, encoded: false };
  }
  if (e.prompt === undefined) {
    throw new DataError({ message: `${where(e, i)}: has no tokens and no prompt to encode` });
  }
  const prompt = encodeText(e.prompt, `${where(e, i)} prompt`);
  if (prompt.length === 0) throw new DataError({ message: `${where(e, i)}: the prompt is empty` });
  const response = encodeText(e.response, `${where(e, i)} response`);
  if (!e.truncated) response.push(EOS_ID);
  return { tokens: [...prompt, ...response], promptLength: prompt.length, encoded: true };
}

/**
 * The per-token arrays of a row in the response layout (src/core/token-alignment.ts: one entry per
 * response token; an older all-tokens array is read too). Rows without token ids are encoded
 * here, so only their logprobs can be reused, and only when they match the encoded response.
 */
function responseArrays(
  e: PackableExperience,
  seq: { tokens: number[]; promptLength: number; encoded: boolean },
  label: string,
): { mask?: readonly number[]; old?: readonly number[]; adv?: readonly number[] } {
  if (seq.encoded) {
    const respLen = seq.tokens.length - seq.promptLength;
    return e.logprobs.length === respLen && respLen > 0 ? { old: e.logprobs } : {};
  }
  const aligned = alignTokenArrays({
    tokens: seq.tokens,
    promptLength: seq.promptLength,
    logprobs: e.logprobs,
    actionMask: e.actionMask,
    ...(e.advantages === undefined ? {} : { advantages: e.advantages }),
  });
  if (typeof aligned === 'string') throw new DataError({ message: `${label}: ${aligned}` });
  return {
    ...(aligned.actionMask.length > 0 ? { mask: aligned.actionMask } : {}),
    ...(aligned.logprobs.length > 0 ? { old: aligned.logprobs } : {}),
    ...(aligned.advantages !== undefined && aligned.advantages.length > 0 ? { adv: aligned.advantages } : {}),
  };
}

/** Aggregation weight of each trained slot of the rows whose `inPart` is set; 0 elsewhere. */
function aggregate(
  out: Float32Array,
  action: Float32Array,
  perSeq: Int32Array,
  inPart: (b: number) => boolean,
  steps: number,
  aggregation: LossAggregation,
): { tokens: number; sequences: number } {
  let tokens = 0;
  let sequences = 0;
  for (let b = 0; b < perSeq.length; b++) {
    if (!inPart(b) || perSeq[b] === 0) continue;
    tokens += perSeq[b]!;
    sequences++;
  }
  for (let b = 0; b < perSeq.length; b++) {
    const n = perSeq[b]!;
    if (!inPart(b) || n === 0) continue;
    const w =
      aggregation === 'token-mean'
        ? 1 / tokens
        : aggregation === 'seq-mean-token-mean'
          ? 1 / (sequences * n)
          : 1 / sequences;
    for (let t = 0; t < steps; t++) if (action[b * steps + t] === 1) out[b * steps + t] = w;
  }
  return { tokens, sequences };
}

/**
 * Lay out a batch for the policy-gradient loss. Rows with `expert: true` get SFT slots
 * (`sftWeight`, aggregated among expert rows), the others policy-gradient slots (`weight`,
 * aggregated among non-expert rows). Throws DataError naming the experience on bad input.
 */
export function packExperiences(
  batch: readonly PackableExperience[],
  aggregation: LossAggregation,
): PackedBatch {
  const seqs = batch.map((e, i) => sequenceOf(e, i));
  const B = batch.length;
  const T = Math.max(2, ...seqs.map((s) => s.tokens.length));
  const S = T - 1;
  const inputs = new Int32Array(B * S);
  const targets = new Int32Array(B * S);
  const action = new Float32Array(B * S);
  const expert = new Float32Array(B * S);
  const oldLogprob = new Float32Array(B * S);
  const hasOld = new Float32Array(B * S);
  const offPolicy = new Float32Array(B * S);
  const advantage = new Float32Array(B * S);
  const weight = new Float32Array(B * S);
  const sftWeight = new Float32Array(B * S);
  const perSeq = new Int32Array(B);

  batch.forEach((e, b) => {
    const seq = seqs[b]!;
    const { tokens, promptLength } = seq;
    const label = where(e, b);
    const isExpert = e.expert === true;
    const { mask, old, adv } = responseArrays(e, seq, label);
    const respLen = tokens.length - promptLength;
    for (let t = 0; t + 1 < tokens.length; t++) inputs[b * S + t] = tokens[t]!;
    for (let k = 0; k < respLen; k++) {
      const slot = b * S + promptLength - 1 + k;
      targets[slot] = tokens[promptLength + k]!;
      const isAction = mask === undefined ? 1 : mask[k]!;
      if (isAction !== 1) continue;
      action[slot] = 1;
      perSeq[b]! += 1;
      // An expert row is imitated (SFT): its advantage and behaviour logprobs play no part.
      if (isExpert) {
        expert[slot] = 1;
        continue;
      }
      const a = adv === undefined ? e.advantage : adv[k]!;
      if (!Number.isFinite(a)) {
        throw new DataError({
          message: `${label}: advantage of response token ${k} is ${a}; expected a finite number`,
        });
      }
      advantage[slot] = a;
      if (old !== undefined) {
        const lp = old[k]!;
        if (!Number.isFinite(lp) || lp > 1e-6) {
          throw new DataError({
            message: `${label}: logprob of response token ${k} is ${lp}; expected a finite value <= 0`,
          });
        }
        oldLogprob[slot] = lp;
        hasOld[slot] = 1;
        // A row delivered before (a replay) was generated by an older policy: off-policy.
        if ((e.useCount ?? 0) > 1) offPolicy[slot] = 1;
      }
    }
  });

  const isExpertRow = (b: number) => batch[b]!.expert === true;
  const pg = aggregate(weight, action, perSeq, (b) => !isExpertRow(b), S, aggregation);
  const sft = aggregate(sftWeight, action, perSeq, isExpertRow, S, aggregation);
  return {
    batch: B,
    steps: S,
    inputs,
    targets,
    action,
    expert,
    oldLogprob,
    hasOld,
    offPolicy,
    advantage,
    weight,
    sftWeight,
    actionTokens: pg.tokens + sft.tokens,
    activeSequences: pg.sequences + sft.sequences,
    expertTokens: sft.tokens,
    expertSequences: sft.sequences,
  };
}
