import { DataError } from '../../core/errors.ts';
import type { JsonValue } from '../../core/task.ts';
import { std } from '../../operators/experience/stats.ts';
import type { PreRolloutStage, StageState } from '../../selectors/stages/types.ts';
import { isMixed } from '../../selectors/stages/types.ts';
import type { RftConfig } from './rft-config.ts';

/**
 * `reward_std_filter` with `refill: true` is dynamic sampling as `dapo_ds` does it: the step
 * draws rounds until `targetGroups` groups pass the filter's test, up to `maxRounds` rounds, every
 * group drawn rolled out and billed (the step record's `rounds` and `rolloutsSpent`). The run
 * puts this stage in front of the selector for it; the filter then runs on the kept groups as
 * before (it still drops by its `metric` and records any surplus).
 *
 * The first round asks for `batchTasks + extraGroups` tasks (the over-sampling of a one-round
 * refill); a later round asks for the missing groups times that same factor.
 */
export interface FilterRefill {
  targetGroups: number;
  maxRounds: number;
  by: 'std' | 'correct';
  metric: string;
  threshold: number;
  correctAbove: number;
  std: 'population' | 'sample';
  /** Candidates per wanted group: (batchTasks + extraGroups) / targetGroups, at least 1. */
  oversample: number;
}

interface FilterParams {
  refill?: boolean;
  targetGroups?: number;
  maxRounds?: number;
  by?: 'std' | 'correct';
  metric?: string;
  threshold?: number;
  correctAbove?: number;
  std?: 'population' | 'sample';
}

/** The refilling `reward_std_filter` of a config (the first one), or null when there is none. */
export function filterRefillOf(config: RftConfig): FilterRefill | null {
  for (const step of config.experienceOps as ReadonlyArray<{ op?: unknown; params?: unknown }>) {
    if (step?.op !== 'reward_std_filter') continue;
    const p = (step.params ?? {}) as FilterParams;
    if (p.refill !== true || p.targetGroups === undefined) continue;
    const drawn = config.explorer.batchTasks + (config.explorer.extraGroups ?? 0);
    return {
      targetGroups: p.targetGroups,
      maxRounds: p.maxRounds ?? 8,
      by: p.by ?? 'std',
      metric: p.metric ?? 'reward',
      threshold: p.threshold ?? 0,
      correctAbove: p.correctAbove ?? 0,
      std: p.std ?? 'population',
      oversample: Math.max(1, drawn / p.targetGroups),
    };
  }
  return null;
}

export class FilterRefillStage implements PreRolloutStage {
  readonly type = 'reward_std_filter_refill';
  readonly refills = true;
  readonly maxRounds: number;
  private readonly r: FilterRefill;

  constructor(refill: FilterRefill) {
    this.r = refill;
    this.maxRounds = refill.maxRounds;
  }

  init(): void {}

  candidates(n: number): number {
    return Math.ceil(n * this.r.oversample - 1e-9);
  }

  /**
   * The filter's own test on the group's rewards. With a `metric` other than the reward (an info
   * key such as DAPO's `accuracy`) the stage sees only rewards, so it keeps groups whose rewards
   * differ; the filter then judges the metric and reports any shortfall (`groups_short`).
   */
  keep(rewards: readonly number[]): boolean {
    const values = rewards.filter((v) => Number.isFinite(v));
    if (values.length === 0) return false;
    if (this.r.metric !== 'reward') return isMixed(values);
    if (this.r.by === 'correct') {
      const correct = values.filter((v) => v > this.r.correctAbove).length;
      return correct > 0 && correct < values.length;
    }
    return isMixed(values) && std(values, this.r.std) > this.r.threshold;
  }

  state(): StageState {
    return { type: this.type, data: {} as { [key: string]: JsonValue } };
  }

  load(state: StageState): void {
    if (state.type !== this.type)
      throw new DataError({ message: `reward_std_filter refill: a ${state.type} state` });
  }
}
