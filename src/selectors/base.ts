import { DataError, WinnowError } from '../core/errors.ts';
import { hashSeed, Rng, type RngState } from '../core/rng.ts';
import type { JsonValue } from '../core/task.ts';
import { checkSelectorState, digestIds, indexIds, validateTaskView } from './task-view.ts';
import type {
  SelectContext,
  Selector,
  SelectorFeedbackReport,
  SelectorState,
  SelectorTaskView,
  SelectorTotals,
  TaskFeedback,
} from './types.ts';

/** One feedback call, after validation: one entry per distinct known task, in first-seen order. */
export interface ObservedBatch {
  size: number;
  idx: Int32Array;
  /** Mean of the (clipped) rewards. */
  mean: Float64Array;
  /** Sum of the (clipped) rewards. */
  sum: Float64Array;
  /** How many rewards. */
  count: Int32Array;
  /** 1 when the rewards were not all equal. */
  mixed: Uint8Array;
}

const MAX_WARNINGS = 100;

function emptyTotals(): SelectorTotals {
  return {
    selectCalls: 0,
    selected: 0,
    feedbackCalls: 0,
    groups: 0,
    rewards: 0,
    mixedGroups: 0,
    clippedRewards: 0,
    droppedRewards: 0,
    unknownTasks: 0,
    emptyGroups: 0,
    warnings: [],
    notices: [],
  };
}

/**
 * What every built-in selector shares: the id ↔ index map, reward validation (clipping into the
 * reward range with a counted warning), running totals, and the checkpoint envelope. Subclasses
 * implement `pick` (indices for the next batch) and, if they learn, `observe`.
 */
export abstract class BaseSelector implements Selector {
  abstract readonly type: string;
  readonly seed: number;
  /** The selector's own random stream (checkpointed). */
  protected rng: Rng;
  protected ids: string[] = [];
  protected index = new Map<string, number>();
  protected initialised = false;
  /** Rewards are clipped into this range before the selector sees them. */
  protected rewardRange: readonly [number, number] = [0, 1];
  protected totals: SelectorTotals = emptyTotals();
  private digestCache: string | undefined;

  constructor(seed: number) {
    if (!Number.isFinite(seed)) throw new RangeError(`selector seed must be a finite number, got ${seed}`);
    this.seed = seed;
    this.rng = new Rng(hashSeed('selector', seed));
  }

  get size(): number {
    return this.ids.length;
  }

  init(view: SelectorTaskView): void {
    if (this.initialised) throw new WinnowError(`${this.type}: init() was already called`);
    validateTaskView(view, `${this.type}.init`);
    this.checkView(view);
    this.ids = [...view.ids];
    this.index = indexIds(this.ids, `${this.type}.init`);
    this.initialised = true;
    this.digestCache = undefined;
    this.onInit(view);
  }

  addTasks(view: SelectorTaskView): void {
    this.requireInit('addTasks');
    validateTaskView(view, `${this.type}.addTasks`);
    this.checkView(view);
    const offset = this.ids.length;
    indexIds(view.ids, `${this.type}.addTasks`, this.index);
    for (const id of view.ids) this.ids.push(id);
    this.digestCache = undefined;
    this.onAddTasks(view, offset);
  }

  select(n: number, _ctx?: SelectContext): string[] {
    this.requireInit('select');
    if (!Number.isInteger(n) || n < 0)
      throw new RangeError(`${this.type}.select: n must be a non-negative integer, got ${n}`);
    if (n === 0) return [];
    if (this.ids.length === 0)
      throw new DataError({ message: `${this.type}.select: there are no tasks to select` });
    const picked = this.pick(n);
    const out = new Array<string>(picked.length);
    for (let i = 0; i < picked.length; i++) out[i] = this.ids[picked[i]!]!;
    this.totals.selectCalls++;
    this.totals.selected += out.length;
    return out;
  }

  feedback(results: readonly TaskFeedback[], _ctx?: SelectContext): SelectorFeedbackReport {
    this.requireInit('feedback');
    const report: SelectorFeedbackReport = {
      step: this.totals.feedbackCalls,
      groups: 0,
      rewards: 0,
      mixedGroups: 0,
      clippedRewards: 0,
      droppedRewards: 0,
      unknownTasks: 0,
      emptyGroups: 0,
      warnings: [],
    };
    const batch = this.normalise(results, report);
    this.observe(batch, report);
    const t = this.totals;
    t.feedbackCalls++;
    t.groups += report.groups;
    t.rewards += report.rewards;
    t.mixedGroups += report.mixedGroups;
    t.clippedRewards += report.clippedRewards;
    t.droppedRewards += report.droppedRewards;
    t.unknownTasks += report.unknownTasks;
    t.emptyGroups += report.emptyGroups;
    for (const w of report.warnings) t.warnings.push(w);
    if (t.warnings.length > MAX_WARNINGS) t.warnings.splice(0, t.warnings.length - MAX_WARNINGS);
    return report;
  }

  report(): SelectorTotals {
    return structuredClone(this.totals);
  }

  state(): SelectorState {
    this.requireInit('state');
    return {
      type: this.type,
      version: 1,
      n: this.ids.length,
      digest: this.digest(),
      seed: this.seed,
      totals: structuredClone(this.totals),
      data: { rng: this.rng.state().map((v) => v >>> 0), ...this.saveData() },
    };
  }

  load(state: SelectorState): void {
    this.requireInit('load');
    const s = checkSelectorState(state, this.type, this.ids);
    const rng = s.data['rng'];
    if (!Array.isArray(rng) || rng.length !== 4 || !rng.every((v) => typeof v === 'number'))
      throw new DataError({ message: `${this.type}.load: state.data.rng must be four numbers` });
    this.loadData(s.data);
    this.rng.load(rng as unknown as RngState);
    this.totals = structuredClone(s.totals);
  }

  /** Indices of known ids (-1 for unknown ones). */
  protected indicesOf(taskIds: readonly string[]): Int32Array {
    const out = new Int32Array(taskIds.length);
    for (let i = 0; i < taskIds.length; i++) out[i] = this.index.get(taskIds[i]!) ?? -1;
    return out;
  }

  protected notice(message: string): void {
    if (!this.totals.notices.includes(message)) this.totals.notices.push(message);
  }

  protected digest(): string {
    this.digestCache ??= digestIds(this.ids);
    return this.digestCache;
  }

  protected requireInit(what: string): void {
    if (!this.initialised) throw new WinnowError(`${this.type}.${what}: call init(view) first`);
  }

  /** A selector's own checks of the tasks it is given, run before anything changes (init, addTasks). */
  protected checkView(_view: SelectorTaskView): void {}

  protected onInit(_view: SelectorTaskView): void {}

  protected onAddTasks(_view: SelectorTaskView, _offset: number): void {}

  /** The next batch as task indices. n ≥ 1 and there is at least one task. */
  protected abstract pick(n: number): ArrayLike<number>;

  protected observe(_batch: ObservedBatch, _report: SelectorFeedbackReport): void {}

  protected saveData(): { [key: string]: JsonValue } {
    return {};
  }

  protected loadData(_data: { [key: string]: JsonValue }): void {}

  private normalise(results: readonly TaskFeedback[], report: SelectorFeedbackReport): ObservedBatch {
    const [lo, hi] = this.rewardRange;
    const slot = new Map<number, number>();
    const idx: number[] = [];
    const sums: number[] = [];
    const counts: number[] = [];
    const firsts: number[] = [];
    const mixed: number[] = [];
    for (const r of results) {
      const k = this.index.get(r.taskId);
      if (k === undefined) {
        report.unknownTasks++;
        if (report.unknownTasks <= 3) report.warnings.push(`unknown task id '${r.taskId}' skipped`);
        continue;
      }
      let sum = 0;
      let count = 0;
      let first = Number.NaN;
      let isMixed = false;
      for (const raw of r.rewards) {
        if (typeof raw !== 'number' || !Number.isFinite(raw)) {
          report.droppedRewards++;
          continue;
        }
        let v = raw;
        if (v < lo || v > hi) {
          v = v < lo ? lo : hi;
          report.clippedRewards++;
        }
        if (count === 0) first = v;
        else if (v !== first) isMixed = true;
        sum += v;
        count++;
      }
      const at = slot.get(k);
      if (at === undefined) {
        if (count === 0) {
          report.emptyGroups++;
          continue;
        }
        slot.set(k, idx.length);
        idx.push(k);
        sums.push(sum);
        counts.push(count);
        firsts.push(first);
        mixed.push(isMixed ? 1 : 0);
      } else if (count > 0) {
        // The same task twice in one step: one group with all its rewards.
        sums[at]! += sum;
        counts[at]! += count;
        if (isMixed || first !== firsts[at]) mixed[at] = 1;
      }
    }
    if (report.clippedRewards > 0)
      report.warnings.push(`${report.clippedRewards} reward(s) outside [${lo}, ${hi}] clipped into range`);
    if (report.droppedRewards > 0)
      report.warnings.push(`${report.droppedRewards} non-finite reward(s) left out`);
    if (report.unknownTasks > 3)
      report.warnings.push(`${report.unknownTasks} unknown task ids skipped in all`);
    if (report.emptyGroups > 0)
      report.warnings.push(`${report.emptyGroups} group(s) with no usable reward skipped`);
    const size = idx.length;
    const batch: ObservedBatch = {
      size,
      idx: Int32Array.from(idx),
      sum: Float64Array.from(sums),
      count: Int32Array.from(counts),
      mean: new Float64Array(size),
      mixed: Uint8Array.from(mixed),
    };
    for (let i = 0; i < size; i++) {
      batch.mean[i] = batch.sum[i]! / batch.count[i]!;
      report.rewards += batch.count[i]!;
      report.mixedGroups += batch.mixed[i]!;
    }
    report.groups = size;
    return batch;
  }
}
