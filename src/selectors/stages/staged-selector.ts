import { ConfigError, DataError } from '../../core/errors.ts';
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
 * A selector with admission stages in front (GRESO), for the live explorer: `select(n)` asks the
 * inner selector for the stages' candidates and returns the admitted ones (at most n), feedback
 * reaches the inner selector and every stage, and the checkpoint carries the stages' states next
 * to the selector's (under `data.stages`), so a resumed run continues exactly. Stages that screen,
 * filter groups or refill need the explorer's rounds (the benches run them through
 * staged-step.ts); in `winnow run` they are refused with a hint.
 */
export class StagedSelector implements Selector {
  readonly type: string;
  private readonly inner: Selector;
  private readonly stages: readonly PreRolloutStage[];

  constructor(inner: Selector, stages: readonly PreRolloutStage[]) {
    this.inner = inner;
    this.stages = stages;
    this.type = inner.type;
    stages.forEach((s, i) => {
      if (s.refills || s.screen || s.keep)
        throw new ConfigError({
          path: `explorer.stages[${i}]`,
          message: `stage '${s.type}' screens or filters rollouts, which winnow run's explorer does not do in rounds yet`,
          hint:
            s.type === 'dapo_ds'
              ? 'DAPO dynamic sampling in winnow run is experienceOps reward_std_filter { refill: true } with explorer.extraGroups'
              : 'run it in bench selection / bench curriculum, or use greso here',
        });
    });
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
