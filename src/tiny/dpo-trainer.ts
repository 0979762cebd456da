import * as tf from '@tensorflow/tfjs';
import { DataError } from '../core/errors.ts';
import type { Experience } from '../core/experience.ts';
import {
  buildPreferencePairs,
  countDropReasons,
  type DroppedGroup,
  PAIR_DROP_REASONS,
  type PreferencePair,
} from '../core/preference-pairs.ts';
import type { Trainer, TrainerDrop, TrainMetrics } from '../trainer/trainer.ts';
import { selectBackend } from './backend.ts';
import { type DpoConfig, type DpoConfigInput, parseDpoConfig } from './dpo-config.ts';
import { type DpoLossInputs, dpoLoss, sequenceLogprobs } from './dpo-loss.ts';
import { sequenceLogits, stepInputs, type TinyWeights } from './gru.ts';
import { type PackedBatch, packExperiences } from './pack.ts';
import type { TinyPolicy } from './policy.ts';
import { TinyTrainer } from './tiny-trainer.ts';
import type { LoadedTrainerCheckpoint } from './trainer-checkpoint.ts';

export interface DpoTrainerOptions {
  /** Frozen reference policy; default: a copy of the policy as it is at construction. */
  reference?: TinyPolicy;
  /** Starting version; default 0. */
  version?: number;
  /** `config` is already parsed (a run's door parsed it with the same schema): it is taken as it is. */
  parsed?: boolean;
}

/** The tensors of one packed pair batch, laid out time-major like the forward pass. */
interface PairTensors {
  inputs: tf.Tensor2D[];
  loss: DpoLossInputs;
  dispose(): void;
}

/**
 * DPO on the tiny policy: each batch becomes preference pairs (best vs worst reward of each
 * group, src/trainer/preference-pairs.ts), then one Adam step on the DPO loss (src/tiny/dpo-loss.ts)
 * against a frozen reference — the weights at the start of training, saved with every
 * checkpoint so a resumed run continues exactly. Like the policy-gradient trainer it updates the
 * policy's variables in place.
 */
export class DpoTrainer extends TinyTrainer implements Trainer {
  readonly name: string = 'dpo';
  readonly config: DpoConfig;
  /** Groups of the last batch that gave no pair, with their reasons (also counted in the metrics). */
  lastDropped: DroppedGroup[] = [];

  constructor(policy: TinyPolicy, config: DpoConfigInput = {}, options: DpoTrainerOptions = {}) {
    const parsed = options.parsed ? (config as DpoConfig) : parseDpoConfig(config);
    super(policy, parsed, {
      reference: options.reference ?? policy.clone(),
      ownsReference: options.reference === undefined,
      version: options.version ?? 0,
    });
    this.config = parsed;
  }

  /** The frozen reference: a DPO trainer always has one (made at construction, or given). */
  private get frozen(): TinyPolicy {
    return this.reference as TinyPolicy;
  }

  /** Select the tf backend named in the config (once per process), then build the trainer. */
  static async create(
    policy: TinyPolicy,
    config: DpoConfigInput = {},
    options: DpoTrainerOptions = {},
  ): Promise<DpoTrainer> {
    const parsed = parseDpoConfig(config);
    await selectBackend({ prefer: parsed.backend });
    return new DpoTrainer(policy, parsed, { ...options, parsed: true });
  }

  /** A copy of the reference weights (frozen during training). */
  referenceWeights(): Float32Array[] {
    return this.frozen.getWeights();
  }

  /**
   * One update from the pairs of `batch`. Metrics: loss, reward_margin, reward_chosen,
   * reward_rejected, accuracy (means over pairs, before the update), pairs, groups_dropped and
   * dropped_<reason> per reason, grad_norm, skipped. A batch without a pair applies no update
   * and leaves `version` unchanged.
   */
  /** The groups the last step could not pair, for the run's rejected table (group id + reason). */
  takeDropped(): TrainerDrop[] {
    const out = this.lastDropped.map((d) => ({
      rowId: d.groupId,
      reason: `no preference pair (${d.reason}): ${d.detail}`,
    }));
    this.lastDropped = [];
    return out;
  }

  async step(batch: readonly Experience[]): Promise<TrainMetrics> {
    const { pairs, dropped } = buildPreferencePairs(batch, { minMargin: this.config.minMargin });
    this.lastDropped = dropped;
    const counts = countDropReasons(dropped);
    const droppedMetrics = Object.fromEntries(PAIR_DROP_REASONS.map((r) => [`dropped_${r}`, counts[r]]));
    const base = { pairs: pairs.length, groups_dropped: dropped.length, ...droppedMetrics };
    if (pairs.length === 0) {
      return {
        loss: 0,
        reward_margin: 0,
        reward_chosen: 0,
        reward_rejected: 0,
        accuracy: 0,
        ...base,
        grad_norm: 0,
        skipped: 1,
      };
    }
    const tensors = this.pairTensors(pairs);
    const { parts, gradNorm } = this.update(1, () => ({
      loss: (w) => dpoLoss(this.logits(w, tensors.inputs, true), tensors.loss, this.config.beta),
      dispose: () => tensors.dispose(),
    }));
    const [loss, margin, chosen, rejected, accuracy] = parts;
    return {
      loss: loss!,
      reward_margin: margin!,
      reward_chosen: chosen!,
      reward_rejected: rejected!,
      accuracy: accuracy!,
      ...base,
      grad_norm: gradNorm,
      skipped: 0,
    };
  }

  private logits(w: TinyWeights, inputs: readonly tf.Tensor2D[], forGrad = false): tf.Tensor2D {
    const raw = sequenceLogits(w, inputs, forGrad);
    return this.config.temperature === 1 ? raw : (tf.div(raw, this.config.temperature) as tf.Tensor2D);
  }

  /**
   * Pack the chosen sequences (rows 0..P−1) then the rejected ones (rows P..2P−1), and the
   * reference log-probabilities of each. Only tokens, prompt length and action mask matter for
   * DPO, so advantages and behaviour logprobs are left out of the packing.
   */
  private pairTensors(pairs: readonly PreferencePair[]): PairTensors {
    const rows = [...pairs.map((p) => p.chosen), ...pairs.map((p) => p.rejected)];
    let packed: PackedBatch;
    try {
      packed = packExperiences(
        rows.map((e) => ({ ...e, expert: false, advantage: 0, advantages: undefined, logprobs: [] })),
        'token-mean',
      );
    } catch (err) {
      if (err instanceof DataError) {
        throw new DataError({ message: `dpo pair batch: ${err.message}` });
      }
      throw err;
    }
    const P = pairs.length;
    const R = packed.batch;
    const S = packed.steps;
    const V = this.policy.config.vocabSize;
    const targetIds = new Int32Array(R * S);
    const chosenSlots = new Float32Array(R * S * P);
    const rejectedSlots = new Float32Array(R * S * P);
    for (let b = 0; b < R; b++) {
      for (let t = 0; t < S; t++) {
        const slot = t * R + b; // time-major, as the forward pass lays out its rows
        targetIds[slot] = packed.targets[b * S + t]!;
        if (packed.action[b * S + t] !== 1) continue;
        if (b < P) chosenSlots[slot * P + b] = 1;
        else rejectedSlots[slot * P + (b - P)] = 1;
      }
    }
    const inputs = stepInputs(packed.inputs, R, S, V);
    const targets = tf.tidy(() => tf.oneHot(tf.tensor1d(targetIds, 'int32'), V)) as tf.Tensor2D;
    const chosenT = tf.tensor2d(chosenSlots, [R * S, P]);
    const rejectedT = tf.tensor2d(rejectedSlots, [R * S, P]);
    const [refChosen, refRejected] = tf.tidy(() => {
      const logits = this.logits(this.frozen.weights(), inputs);
      return [sequenceLogprobs(logits, targets, chosenT), sequenceLogprobs(logits, targets, rejectedT)];
    });
    return {
      inputs,
      loss: {
        targets,
        chosenSlots: chosenT,
        rejectedSlots: rejectedT,
        refChosen: refChosen!,
        refRejected: refRejected!,
      },
      dispose: () => {
        for (const x of [...inputs, targets, chosenT, rejectedT, refChosen!, refRejected!]) x.dispose();
      },
    };
  }

  /** Refuses a checkpoint of another trainer or one without a reference. */
  protected override checkCheckpoint(ckpt: LoadedTrainerCheckpoint, dir: string): void {
    if (ckpt.trainer !== this.name) {
      throw new DataError({
        file: dir,
        message: `checkpoint was written by trainer '${ckpt.trainer}', not '${this.name}'`,
      });
    }
    if (ckpt.reference === undefined) {
      throw new DataError({ file: dir, message: 'DPO checkpoint has no reference/ folder' });
    }
  }
}
