import { DataError } from '../../core/errors.ts';
import type { JsonValue } from '../../core/task.ts';
import { CompositeSelector } from '../composite.ts';
import type {
  SelectContext,
  Selector,
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
export class StagedSelector extends CompositeSelector {
  readonly type: string;
  readonly inner: Selector;
  readonly stages: readonly PreRolloutStage[];
  /** Some stage screens, keeps only some groups or refills: a step takes rounds of rollouts. */
  readonly needsRounds: boolean;

  constructor(inner: Selector, stages: readonly PreRolloutStage[]) {
    // The checkpoint is the inner selector's (its seed included); the seed here is for reading only.
    super([inner], 'seed' in inner && typeof inner.seed === 'number' ? inner.seed : 0);
    this.inner = inner;
    this.stages = stages;
    this.type = inner.type;
    this.needsRounds = stages.some((s) => s.refills || s.screen !== undefined || s.keep !== undefined);
  }

  protected initChildren(view: SelectorTaskView): void {
    this.inner.init(view);
    for (const s of this.stages) s.init(view);
  }

  /** The stages' candidates from the inner selector; the admitted ones, at most n. */
  protected combine(n: number, ctx?: SelectContext): string[] {
    const ask = this.stages.reduce((k, s) => (s.candidates ? s.candidates(k) : k), n);
    let ids = this.inner.select(ask, ctx);
    for (const s of this.stages) if (s.admit) ids = s.admit(ids, n);
    return ids.slice(0, n);
  }

  protected override afterFeedback(results: readonly TaskFeedback[]): void {
    for (const s of this.stages) s.observe?.(results);
  }

  /** The inner selector's checkpoint, the stages' states beside its data (`data.stages`). */
  override state(): SelectorState {
    this.requireInit('state');
    const st = this.inner.state();
    return { ...st, data: { ...st.data, ...this.saveData() } };
  }

  override load(state: SelectorState): void {
    this.requireInit('load');
    const { stages, ...rest } = state.data;
    this.loadStages(stages);
    this.inner.load({ ...state, data: rest });
    this.stages.forEach((s, i) => {
      s.load(StageStateSchema.parse((stages as JsonValue[])[i]));
    });
  }

  protected saveData(): { [key: string]: JsonValue } {
    return { stages: this.stages.map((s) => s.state()) as unknown as JsonValue };
  }

  /** (The stages' states load with the inner selector's, in `load`.) */
  protected loadData(_data: { [key: string]: JsonValue }): void {}

  private loadStages(stages: JsonValue | undefined): void {
    const list = Array.isArray(stages) ? stages : [];
    if (list.length !== this.stages.length)
      throw new DataError({
        message: `selector state has ${list.length} stage state(s), the config has ${this.stages.length} stage(s)`,
      });
  }

  /** The inner selector's totals (its select counts are the staged ones). */
  override report(): SelectorTotals {
    return this.inner.report();
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
