import { Adam, type AdamSettings } from './adam.ts';
import type { TinyPolicy } from './policy.ts';
import {
  type LoadedTrainerCheckpoint,
  readTrainerCheckpoint,
  writeTrainerCheckpoint,
} from './trainer-checkpoint.ts';
import { type ChunkLoss, type UpdateResult, updatePolicy } from './trainer-loop.ts';

/**
 * What the tiny policy's RL trainers (policy gradient, DPO) hold alike: the policy they update in
 * place, its Adam state, an optional frozen reference policy, a version, and checkpoints of all
 * of it. Each trainer supplies its loss to `update` (trainer-loop.ts).
 */
export abstract class TinyTrainer {
  abstract readonly name: string;
  abstract readonly config: { maxGradNorm: number };
  readonly policy: TinyPolicy;
  protected readonly adam: Adam;
  protected reference: TinyPolicy | undefined;
  protected ownsReference: boolean;
  protected currentVersion: number;

  protected constructor(
    policy: TinyPolicy,
    adam: AdamSettings,
    o: { reference: TinyPolicy | undefined; ownsReference: boolean; version: number },
  ) {
    this.policy = policy;
    this.adam = new Adam(policy.variables, {
      lr: adam.lr,
      beta1: adam.beta1,
      beta2: adam.beta2,
      eps: adam.eps,
      weightDecay: adam.weightDecay,
    });
    this.reference = o.reference;
    this.ownsReference = o.ownsReference;
    this.currentVersion = o.version;
  }

  get version(): number {
    return this.currentVersion;
  }

  /** Adam steps applied so far (equals version minus the starting version, unless loaded). */
  get optimizerStep(): number {
    return this.adam.step;
  }

  /** One Adam update from the trainer's loss over `chunks` micro-batches; the version moves on. */
  protected update(chunks: number, chunk: (index: number) => ChunkLoss): UpdateResult {
    const result = updatePolicy(this.policy, this.adam, {
      chunks,
      chunk,
      maxGradNorm: this.config.maxGradNorm,
    });
    this.currentVersion += 1;
    return result;
  }

  /** Write weights, Adam moments and step, version, config and the reference policy under `dir`. */
  async save(dir: string): Promise<void> {
    const { m, v } = this.adam.moments();
    await writeTrainerCheckpoint(dir, {
      trainer: this.name,
      version: this.currentVersion,
      optimizerStep: this.adam.step,
      config: this.config,
      policy: this.policy,
      m,
      v,
      ...(this.reference === undefined ? {} : { reference: this.reference }),
    });
  }

  /** Restore what `save` wrote. The policy's architecture must match the checkpoint's. */
  async load(dir: string): Promise<void> {
    const ckpt = await readTrainerCheckpoint(dir, this.policy.config);
    this.checkCheckpoint(ckpt, dir);
    this.policy.setWeights(ckpt.weights);
    this.adam.restore(ckpt.optimizerStep, ckpt.m, ckpt.v);
    this.currentVersion = ckpt.version;
    if (ckpt.reference !== undefined) {
      if (this.reference === undefined) {
        this.reference = this.policy.clone();
        this.ownsReference = true;
      }
      this.reference.setWeights(ckpt.reference);
    }
  }

  /** A trainer's own checks of a checkpoint before anything is restored (none by default). */
  protected checkCheckpoint(_ckpt: LoadedTrainerCheckpoint, _dir: string): void {}

  dispose(): void {
    this.adam.dispose();
    if (this.ownsReference) this.reference?.dispose();
  }
}
