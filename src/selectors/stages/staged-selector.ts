import { DataError } from '../../core/errors.ts';
import type { JsonValue } from '../../core/task.ts';
import type {
  SelectContext,
  Selector,
  SelectorFeedbackReport,
  SelectorState,
  SelectorTaskView,
  SelectorTotals,
  TaskFeedback,
} from '../types.ts';
import { type PreRolloutStage, StageStateSchema } from './types.ts';

/**
 * A selector with pre-rollout stages in front, for the live explorer. Admission stages (GRESO) work
 * through `select(n)`: it asks the inner selector for the stages' candidates and returns the
 * admitted ones (at most n). Stages that screen, filter groups or refill (`needsRounds`: SPEED,
 * DAPO dynamic sampling) need rounds of rollouts inside one step: the explorer then drives
 * staged-step.ts through live-rounds.ts with `inner` and `stages`, as the benches do. Feedback
 * reaches the inner selector and every stage, and the checkpoint carries the stages' states next to
 * the selector's (under `data.stages`), so a resumed run continues exactly.
 */
export class StagedSelector implements Selector {
  readonly type: string;
  readonly inner: Selector;
  readonly stages: readonly PreRolloutStage[];
  /** Some stage screens, keeps only some groups or refills: a step takes rounds of rollouts. */
  readonly needsRounds: boolean;

  constructor(inner: Selector, stages: readonly PreRolloutStage[]) {
    this.inner = inner;
    this.stages = stages;
    this.type = inner.type;
    this.needsRounds = stages.some((s) => s.refills || s.screen !== undefined || s.keep !== undefined);
  }

  init(view: SelectorTaskView): void {
    this.inner.init(view);
    for (const s of this.stages) s.init(view);
  }

  select(n: number, ctx?: SelectContext): string[] {
    const ask = this.stages.reduce((k, s) => (s.candidates ? s.candidates(k) : k), n);
    let ids = this.inner.select(ask, ctx);
    for (const s of this.stages) if (s.admit) ids = s.admit(ids, n);
    return ids.slice(0, n);
  }

  feedback(results: readonly TaskFeedback[], ctx?: SelectContext): SelectorFeedbackReport {
    const report = this.inner.feedback(results, ctx);
    for (const s of this.stages) s.observe?.(results);
    return report;
  }

  state(): SelectorState {
    const st = this.inner.state();
    const stages = this.stages.map((s) => s.state()) as unknown as JsonValue;
    return { ...st, data: { ...st.data, stages } };
  }

  load(state: SelectorState): void {
    const { stages, ...rest } = state.data;
    const list = Array.isArray(stages) ? stages : [];
    if (list.length !== this.stages.length)
      throw new DataError({
        message: `selector state has ${list.length} stage state(s), the config has ${this.stages.length} stage(s)`,
      });
    this.inner.load({ ...state, data: rest });
    this.stages.forEach((s, i) => {
      s.load(StageStateSchema.parse(list[i]));
    });
  }

  report(): SelectorTotals {
    return this.inner.report();
  }

  predict(taskIds: readonly string[]): Float64Array {
    return this.inner.predict
      ? this.inner.predict(taskIds)
      : new Float64Array(taskIds.length).fill(Number.NaN);
  }
}

/** The selector itself when there are no stages, else the selector with its admission stages in front. */
export function withStages(selector: Selector, stages: readonly PreRolloutStage[]): Selector {
  return stages.length === 0 ? selector : new StagedSelector(selector, stages);
}

/** The staged selector when a step must take rounds of rollouts (screening, group filters, refills). */
export function roundsSelector(selector: Selector): StagedSelector | undefined {
  return selector instanceof StagedSelector && selector.needsRounds ? selector : undefined;
}
