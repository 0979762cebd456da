import { DataError, WinnowError } from '../core/errors.ts';
import type { JsonValue } from '../core/task.ts';
import { checkSelectorState, digestIds, validateTaskView } from './task-view.ts';
import type {
  SelectContext,
  Selector,
  SelectorFeedbackReport,
  SelectorState,
  SelectorTaskView,
  SelectorTotals,
  TaskFeedback,
} from './types.ts';

/** A feedback report with nothing in it yet, for call `step`. */
export function emptyReport(step: number): SelectorFeedbackReport {
  return {
    step,
    groups: 0,
    rewards: 0,
    mixedGroups: 0,
    clippedRewards: 0,
    droppedRewards: 0,
    unknownTasks: 0,
    emptyGroups: 0,
    warnings: [],
  };
}

/** The counts of a report or of running totals that a composite sums over its children. */
const SUMMED = [
  'groups',
  'rewards',
  'mixedGroups',
  'clippedRewards',
  'droppedRewards',
  'unknownTasks',
  'emptyGroups',
] as const;

/** Add `from`'s counts to `into`, and its warnings, each after `prefix`. */
export function addCounts(
  into: SelectorFeedbackReport | SelectorTotals,
  from: SelectorFeedbackReport | SelectorTotals,
  prefix: string,
): void {
  for (const key of SUMMED) into[key] += from[key];
  for (const w of from.warnings) into.warnings.push(`${prefix}${w}`);
}

/**
 * What every selector built from other selectors shares (mixed, diverse, a selector with stages in
 * front): the init guard and task-view check, select's argument checks and counters, feedback
 * fanned out to the children with one report, predictions and totals from the children, and a
 * checkpoint that carries each child's state. The children arrive built (the run's registry built
 * them, through SelectorBuildContext.build, so a selector the run registered works as a child);
 * a composite says only how it combines them: `combine` (the batch), and where it routes
 * feedback, splits tasks, and what it adds to the checkpoint.
 */
export abstract class CompositeSelector implements Selector {
  abstract readonly type: string;
  readonly seed: number;
  /** The child selectors, in the order their states and reports are listed. */
  protected readonly children: readonly Selector[];
  /** The ids the composite answers for (what its checkpoint's digest covers). */
  protected ids: string[] = [];
  protected initialised = false;
  protected selectCalls = 0;
  protected selected = 0;
  protected feedbackCalls = 0;

  constructor(children: readonly Selector[], seed: number) {
    this.children = children;
    this.seed = seed;
  }

  /** Hand the children their tasks (the view is checked). */
  protected abstract initChildren(view: SelectorTaskView): void;

  /** The next batch of n ≥ 1 task ids, from the children. */
  protected abstract combine(n: number, ctx?: SelectContext): string[];

  init(view: SelectorTaskView): void {
    if (this.initialised) throw new WinnowError(`${this.type}: init() was already called`);
    validateTaskView(view, `${this.type}.init`);
    this.initChildren(view);
    this.initialised = true;
  }

  select(n: number, ctx?: SelectContext): string[] {
    this.requireInit('select');
    if (!Number.isInteger(n) || n < 0)
      throw new RangeError(`${this.type}.select: n must be a non-negative integer, got ${n}`);
    if (n === 0) return [];
    const out = this.combine(n, ctx);
    this.selectCalls++;
    this.selected += out.length;
    return out;
  }

  feedback(results: readonly TaskFeedback[], ctx?: SelectContext): SelectorFeedbackReport {
    this.requireInit('feedback');
    const report = this.routeFeedback(results, ctx);
    this.feedbackCalls++;
    this.afterFeedback(results);
    return report;
  }

  /** Default: every result to the one inner selector, whose report is the composite's. */
  protected routeFeedback(results: readonly TaskFeedback[], ctx?: SelectContext): SelectorFeedbackReport {
    return this.children[0]!.feedback(results, ctx);
  }

  /** After the children have learnt from a feedback call (stages observe here). */
  protected afterFeedback(_results: readonly TaskFeedback[]): void {}

  /**
   * Feed `routed[i]` to child i (a child with nothing routed is not called) and add each child's
   * report to `report`, its warnings after `label(i)`.
   */
  protected fanOut(
    routed: readonly (readonly TaskFeedback[])[],
    report: SelectorFeedbackReport,
    label: (i: number) => string,
    ctx?: SelectContext,
  ): void {
    this.children.forEach((child, i) => {
      if (routed[i]!.length === 0) return;
      addCounts(report, child.feedback(routed[i]!, ctx), label(i));
    });
  }

  /** Default: the inner selector's predictions (NaN where it makes none). */
  predict(taskIds: readonly string[]): Float64Array {
    const inner = this.children[0]!;
    if (inner.predict) return inner.predict(taskIds);
    return new Float64Array(taskIds.length).fill(Number.NaN);
  }

  /** Default: the inner selector's totals, with the composite's own select counts. */
  report(): SelectorTotals {
    return { ...this.children[0]!.report(), selectCalls: this.selectCalls, selected: this.selected };
  }

  state(): SelectorState {
    this.requireInit('state');
    return {
      type: this.type,
      version: 1,
      n: this.ids.length,
      digest: digestIds(this.ids),
      seed: this.seed,
      totals: this.report(),
      data: this.saveData(),
    };
  }

  load(state: SelectorState): void {
    this.requireInit('load');
    const s = checkSelectorState(state, this.type, this.ids);
    this.loadData(s.data);
  }

  /** The composite's checkpoint data (children's states included, see childState). */
  protected abstract saveData(): { [key: string]: JsonValue };

  /** Restore from `saveData`'s output (children included, see loadChild). */
  protected abstract loadData(data: { [key: string]: JsonValue }): void;

  /** Child i's checkpoint, as JSON. */
  protected childState(i: number): JsonValue {
    return this.children[i]!.state() as unknown as JsonValue;
  }

  /** Restore child i from its checkpoint; `what` names it when the checkpoint has none. */
  protected loadChild(i: number, saved: JsonValue | undefined, what: string): void {
    if (saved === undefined || saved === null || typeof saved !== 'object' || Array.isArray(saved))
      throw new DataError({ message: `${this.type}.load: no state for ${what}` });
    this.children[i]!.load(saved as unknown as SelectorState);
  }

  /** Before child i is given tasks mid-run: it must take them (`of` names it in the error). */
  protected requireAddTasks(i: number, of = ''): (view: SelectorTaskView) => void {
    const child = this.children[i]!;
    if (!child.addTasks)
      throw new WinnowError(`${this.type}.addTasks: the '${child.type}' selector${of} cannot take new tasks`);
    return (view) => child.addTasks!(view);
  }

  protected requireInit(what: string): void {
    if (!this.initialised) throw new WinnowError(`${this.type}.${what}: call init(view) first`);
  }
}
