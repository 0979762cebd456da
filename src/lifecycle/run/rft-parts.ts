import type { Experience } from '../../core/experience.ts';
import type { JsonValue, Task } from '../../core/task.ts';
import type { Explorer } from '../../explorer/explorer.ts';
import type { FaultCounts } from '../../explorer/faults.ts';
import type { OperatorGraph } from '../../operators/graph.ts';
import type { Selector } from '../../selectors/types.ts';
import type { Trainer } from '../../trainer/trainer.ts';
import type { EvalSet } from './evaluation/eval-sets.ts';

/** What the run loop needs from the experience buffer (src/lifecycle/run/run-buffer.ts adapts ExperienceBuffer). */
export interface RunBuffer {
  /** One commit per call; idempotent on experience id. */
  write(experiences: readonly Experience[]): Promise<void>;
  /** Up to `n` experiences for training step `trainStep` (leased until `ack`); skipped rows come back for the record. */
  sample(
    n: number,
    ctx: { trainStep: number; modelVersion: number },
  ): Promise<{ experiences: Experience[]; weights: number[]; skipped: number; blocked?: string }>;
  /** The trainer's checkpoint for `trainStep` is durable: deliveries up to it are final. */
  ack(trainStep: number): Promise<void>;
  /**
   * Resume from a checkpoint taken after explorer step `exploreStep` and train step `trainStep`:
   * deliveries after `trainStep` are rolled back, and experiences written after `exploreStep` are
   * taken out of the table and handed back, so the resumed explorer re-uses them (nothing
   * acknowledged is lost, nothing is delivered before the step that wrote it).
   */
  resume(exploreStep: number, trainStep: number): Promise<Experience[]>;
  count(): Promise<number>;
  /** The sampler's own state (the replay-ratio limiter's counters), saved with checkpoints. */
  samplerState(): JsonValue;
  /** Whether the buffer's rate limiter lets `k` more experiences in now (scale-out backpressure). */
  canInsert?(k: number): boolean;
  loadSamplerState(state: JsonValue): void;
  close(): Promise<void>;
}

/** Everything a run is made of, built from its config (rft-build.ts) or by hand in tests. */
export interface RftParts {
  tasks: Task[];
  heldout: Task[];
  selector: Selector;
  explorer: Explorer;
  /** Rolls out a step's task groups instead of `explorer` (scale-out: src/scale/queue-rollouts.ts sends them to workers). */
  rollouts?: Pick<Explorer, 'explore'>;
  experienceGraph: OperatorGraph<Experience>;
  buffer: RunBuffer;
  trainer: Trainer | null;
  /** Copy the trainer's weights into the rollout model; returns the version now used for rollouts. */
  sync(): Promise<number>;
  /**
   * Route the rollout model's requests to the weights of `version` (loaded by an earlier sync).
   * Called as each explore step begins, so all requests of a step name the same weights and its
   * experiences carry the version the server served. Absent for in-process models.
   */
  serve?(version: number): Promise<void>;
  /** Held-out accuracy (greedy) of the rollout model on `tasks`. */
  evaluate(tasks: readonly Task[]): Promise<number>;
  /** The config's `evaluation.sets`, each sampled k times per task (none when absent). */
  evalSets?: EvalSet[];
  /** Save/load the rollout model's own weights (they differ from the trainer's between syncs). */
  saveExplorer?(dir: string): Promise<void>;
  loadExplorer?(dir: string): Promise<void>;
  faults?: FaultCounts;
  /** Lines for the run log: backend, model, etc. */
  describe: Record<string, string>;
  dispose?(): void;
}
