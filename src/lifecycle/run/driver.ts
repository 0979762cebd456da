import type { RunState } from './run-state.ts';

/**
 * One lifecycle mode: the order in which a step explores, trains, syncs and records. A driver
 * begins the run itself (resume, the first evaluation) because modes differ in what that means.
 */
export interface ModeDriver {
  readonly mode: string;
  run(run: RunState): Promise<void>;
}
