import type { Experience } from '../core/experience.ts';
import type { RejectedInput } from '../core/rejected.ts';
import type { Task } from '../core/task.ts';
import type { Explorer } from '../explorer/explorer.ts';
import type { FaultCounts } from '../explorer/faults.ts';
import type { OperatorGraph } from '../operators/graph.ts';
import type { Selector } from '../selectors/types.ts';
import type { Trainer } from '../trainer/trainer.ts';

/** What the run loop needs from the experience buffer. */
export interface RunBuffer {
  write(experiences: readonly Experience[]): Promise<void>;
  /** Up to `n` experiences for training step `trainStep`; what the sampler skipped is returned for the record. */
  sample(
    n: number,
    ctx: { trainStep: number; modelVersion: number },
  ): Promise<{ experiences: Experience[]; skipped: RejectedInput[] }>;
  /** The table version (for checkpoints) and a way back to it (for resume). */
  version(): Promise<number>;
  restore(version: number): Promise<void>;
  count(): Promise<number>;
}

/** Everything a run is made of, built from its config (rft-build.ts) or by hand in tests. */
export interface RftParts {
  tasks: Task[];
  heldout: Task[];
  selector: Selector;
  explorer: Explorer;
  experienceGraph: OperatorGraph<Experience>;
  buffer: RunBuffer;
  trainer: Trainer | null;
  /** Copy the trainer's weights into the rollout model; returns the version now used for rollouts. */
  sync(): Promise<number>;
  /** Held-out accuracy (greedy) of the rollout model on `tasks`. */
  evaluate(tasks: readonly Task[]): Promise<number>;
  /** Save/load the rollout model's own weights (they differ from the trainer's between syncs). */
  saveExplorer?(dir: string): Promise<void>;
  loadExplorer?(dir: string): Promise<void>;
  faults?: FaultCounts;
  /** Lines for the run log: backend, model, etc. */
  describe: Record<string, string>;
  dispose?(): void;
}
