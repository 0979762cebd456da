import { z } from 'zod';
import type { JsonValue } from '../../core/task.ts';
import { JsonValueSchema } from '../../core/task.ts';
import type { SelectorTaskView } from '../types.ts';

/** One task's rollouts in a round (a full group, or only its screening rollouts). */
export interface StageGroup {
  taskId: string;
  rewards: readonly number[];
}

/** A stage's checkpoint: its type and JSON-safe data (typed arrays through state-codec.ts). */
export interface StageState {
  type: string;
  data: { [key: string]: JsonValue };
}

export const StageStateSchema = z.object({
  type: z.string().min(1),
  data: z.record(z.string(), JsonValueSchema),
});

/**
 * A pre-rollout stage composes with any selector: it may ask the selector for more candidates,
 * skip some before any rollout (GRESO), screen the rest with a few rollouts and continue only some
 * (SPEED), keep only some full groups for training (DAPO dynamic sampling), and make a step refill
 * with further rounds until it has its groups. Every hook is optional; a stage learns from every
 * group rolled out (`observe`) and checkpoints itself so a resumed run continues exactly.
 */
export interface PreRolloutStage {
  readonly type: string;
  /** Whether a step rolls out further rounds until it keeps the groups it wants. */
  readonly refills: boolean;
  /** Rounds a refilling step may take before it trains on what it has (the step's own bound wins). */
  readonly maxRounds?: number;
  init(view: SelectorTaskView): void;
  /** How many candidates to ask the selector for when `n` groups are wanted. */
  candidates?(n: number): number;
  /** Before any rollout: the candidates to roll out, at most `n`, in order. */
  admit?(ids: readonly string[], n: number): string[];
  /** Screening rollouts per task before deciding whether to continue (0: no screening). */
  screen?(groupSize: number): number;
  /** After screening: whether the task goes on to its full group. */
  continueAfterScreen?(rewards: readonly number[]): boolean;
  /** After the full group: whether it is kept for training. */
  keep?(rewards: readonly number[]): boolean;
  /** Every group rolled out in a round (screened-out tasks with their screening rewards). */
  observe?(groups: readonly StageGroup[]): void;
  state(): StageState;
  load(state: StageState): void;
}

/** Rewards that are not all equal: the group carries a GRPO gradient. */
export function isMixed(rewards: readonly number[]): boolean {
  const finite = rewards.filter((r) => Number.isFinite(r));
  return finite.length > 1 && finite.some((r) => r !== finite[0]);
}
