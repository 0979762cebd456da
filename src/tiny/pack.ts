import { DataError } from '../core/errors.ts';
import type { Experience } from '../core/experience.ts';
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
  /** 1 where the target is an action token that is trained on. */
  action: Float32Array;
  /** Old (behaviour) log-probability of the target, where known. */
  oldLogprob: Float32Array;
  /** 1 where oldLogprob is known; action slots without one are treated as on-policy (ratio 1). */
  hasOld: Float32Array;
  /** Advantage of the target token. */
  advantage: Float32Array;
  /** Aggregation weight of each slot: the loss is Σ weight·(per-token loss). */
  weight: Float32Array;
  /** Number of action tokens in the batch. */
  actionTokens: number;
  /** Number of sequences with at least one action token. */
  activeSequences: number;
}

/** The fields of an experience the packer reads. */
export type PackableExperience = Pick<
  Experience,
  'id' | 'tokens' | 'promptLength' | 'logprobs' | 'actionMask' | 'advantage' | 'response' | 'truncated'
> &
  Partial<Pick<Experience, 'advantages' | 'prompt'>>;

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

/** Per-response-token values from an array aligned either to the response or to the whole sequence. */
function responseAligned(
  values: readonly number[],
  total: number,
  promptLength: number,
  field: string,
  label: string,
): readonly number[] | undefined {
  const respLen = total - promptLength;
  if (values.length === 0) return undefined;
  if (values.length === respLen) return values;
  if (values.length === total) return values.slice(promptLength);
  throw new DataError({
    message: `${label}: ${field} has ${values.length} entries; expected ${respLen} (response tokens) or ${total} (all tokens)`,
  });
}

/** Lay out a batch for the policy-gradient loss. Throws DataError naming the experience on bad input. */
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
  const oldLogprob = new Float32Array(B * S);
  const hasOld = new Float32Array(B * S);
  const advantage = new Float32Array(B * S);
  const weight = new Float32Array(B * S);
  const perSeq = new Int32Array(B);

  batch.forEach((e, b) => {
    const { tokens, promptLength, encoded } = seqs[b]!;
    const label = where(e, b);
    const respLen = tokens.length - promptLength;
    const mask = encoded
      ? undefined
      : responseAligned(e.actionMask, tokens.length, promptLength, 'actionMask', label);
    const old = responseAligned(
      encoded && e.logprobs.length !== respLen ? [] : e.logprobs,
      tokens.length,
      promptLength,
      'logprobs',
      label,
    );
    const adv = e.advantages
      ? responseAligned(e.advantages, tokens.length, promptLength, 'advantages', label)
      : undefined;
    for (let t = 0; t + 1 < tokens.length; t++) inputs[b * S + t] = tokens[t]!;
    for (let k = 0; k < respLen; k++) {
      const slot = b * S + promptLength - 1 + k;
      targets[slot] = tokens[promptLength + k]!;
      const isAction = mask === undefined ? 1 : mask[k]!;
      if (isAction !== 1) continue;
      action[slot] = 1;
      perSeq[b]! += 1;
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
      }
    }
  });

  let actionTokens = 0;
  let activeSequences = 0;
  for (let b = 0; b < B; b++) {
    actionTokens += perSeq[b]!;
    if (perSeq[b]! > 0) activeSequences++;
  }
  for (let b = 0; b < B; b++) {
    const n = perSeq[b]!;
    if (n === 0) continue;
    const w =
      aggregation === 'token-mean'
        ? 1 / actionTokens
        : aggregation === 'seq-mean-token-mean'
          ? 1 / (activeSequences * n)
          : 1 / activeSequences;
    for (let t = 0; t < S; t++) if (action[b * S + t] === 1) weight[b * S + t] = w;
  }
  return {
    batch: B,
    steps: S,
    inputs,
    targets,
    action,
    oldLogprob,
    hasOld,
    advantage,
    weight,
    actionTokens,
    activeSequences,
  };
}
