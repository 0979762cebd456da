import { ConfigError, DataError } from '../core/errors.ts';
import { hashSeed, Rng, type RngState } from '../core/rng.ts';
import type { JsonValue } from '../core/task.ts';
import { addCounts, CompositeSelector, emptyReport } from './composite.ts';
import { tieRank } from './hash-tie.ts';
import { validateTaskView } from './task-view.ts';
import type {
  SelectContext,
  Selector,
  SelectorFeedbackReport,
  SelectorTaskView,
  SelectorTotals,
  TaskFeedback,
} from './types.ts';

export interface MixEntry {
  taskset: string;
  /** Share of each batch; leave every weight out to mix in proportion to task-set size. */
  weight?: number;
  selector: Selector;
}

/** Take the rows of `view` at `rows` (all columns). */
function subView(view: SelectorTaskView, rows: readonly number[]): SelectorTaskView {
  const features: Record<string, Float64Array> = {};
  for (const [name, col] of Object.entries(view.features)) {
    const out = new Float64Array(rows.length);
    for (let i = 0; i < rows.length; i++) out[i] = col[rows[i]!]!;
    features[name] = out;
  }
  const sub: SelectorTaskView = { ids: rows.map((r) => view.ids[r]!), features };
  if (view.domains) {
    const d = view.domains;
    sub.domains = d instanceof Int32Array ? Int32Array.from(rows, (r) => d[r]!) : rows.map((r) => d[r]!);
  }
  if (view.tasksets) sub.tasksets = rows.map((r) => view.tasksets![r]!);
  // Embedding columns too: a task set's selector may be `diverse`, which reads them.
  if (view.vectors)
    sub.vectors = Object.fromEntries(
      Object.entries(view.vectors).map(([name, col]) => [name, rows.map((r) => col[r] ?? null)]),
    );
  return sub;
}

/**
 * Several task sets, each with its own selector, mixed in fixed proportions (explicit weights, or
 * task-set sizes). Each batch's quota per task set is a largest-remainder apportionment whose
 * remainders carry over to the next batch (ties broken in a seeded order), so after any number of
 * batches every task set's count is within one of its exact share. Feedback is routed by task id
 * (or by `taskset` when ids collide across sets).
 */
export class MixedSelector extends CompositeSelector {
  readonly type = 'mixed';
  private readonly entries: MixEntry[];
  private readonly rng: Rng;
  private weights: number[] = [];
  private sizes: number[] = [];
  private credits: number[] = [];
  private owner = new Map<string, number>();
  private ownUnknown = 0;
  private ownWarnings: string[] = [];
  private notices: string[] = [];

  constructor(entries: readonly MixEntry[], seed: number) {
    super(
      entries.map((e) => e.selector),
      seed,
    );
    if (entries.length === 0)
      throw new ConfigError({
        path: 'selector.params.tasksets',
        message: 'give at least one task set to mix',
      });
    const names = new Set<string>();
    entries.forEach((e, i) => {
      if (names.has(e.taskset))
        throw new ConfigError({
          path: `selector.params.tasksets[${i}].taskset`,
          message: `task set '${e.taskset}' is listed twice`,
        });
      names.add(e.taskset);
      if (e.weight !== undefined && !(e.weight >= 0 && Number.isFinite(e.weight)))
        throw new ConfigError({
          path: `selector.params.tasksets[${i}].weight`,
          message: `expected a weight ≥ 0, got ${e.weight}`,
        });
    });
    const given = entries.filter((e) => e.weight !== undefined).length;
    if (given !== 0 && given !== entries.length)
      throw new ConfigError({
        path: 'selector.params.tasksets',
        message: 'give a weight for every task set, or for none (then sets mix in proportion to their size)',
      });
    this.entries = [...entries];
    this.rng = new Rng(hashSeed('mixed-selector', seed));
    this.credits = entries.map(() => 0);
    this.sizes = entries.map(() => 0);
  }

  /** The share of each task set in every batch, in entry order. */
  shares(): Record<string, number> {
    return Object.fromEntries(this.entries.map((e, i) => [e.taskset, this.weights[i] ?? 0]));
  }

  protected initChildren(view: SelectorTaskView): void {
    const rows = this.split(view, 'init');
    this.entries.forEach((e, i) => {
      if (rows[i]!.length === 0)
        throw new ConfigError({
          path: `selector.params.tasksets[${i}].taskset`,
          message: `task set '${e.taskset}' has no tasks`,
        });
      e.selector.init(subView(view, rows[i]!));
    });
    this.recomputeWeights();
  }

  addTasks(view: SelectorTaskView): void {
    this.requireInit('addTasks');
    validateTaskView(view, 'mixed.addTasks');
    const rows = this.split(view, 'addTasks');
    this.entries.forEach((e, i) => {
      if (rows[i]!.length > 0)
        this.requireAddTasks(i, ` of task set '${e.taskset}'`)(subView(view, rows[i]!));
    });
    this.recomputeWeights();
  }

  private split(view: SelectorTaskView, what: string): number[][] {
    if (!view.tasksets)
      throw new DataError({
        message: `mixed.${what}: the task view has no tasksets column (build it with taskViewFromTasks)`,
      });
    const slot = new Map(this.entries.map((e, i) => [e.taskset, i] as const));
    const rows: number[][] = this.entries.map(() => []);
    const ignored = new Map<string, number>();
    view.tasksets.forEach((ts, r) => {
      const i = slot.get(ts);
      if (i === undefined) {
        ignored.set(ts, (ignored.get(ts) ?? 0) + 1);
        return;
      }
      rows[i]!.push(r);
      this.sizes[i]!++;
      const id = view.ids[r]!;
      const prev = this.owner.get(id);
      this.owner.set(id, prev === undefined || prev === i ? i : -1);
      this.ids.push(id);
    });
    for (const [ts, count] of ignored) {
      const msg = `mixed: ${count} task(s) of task set '${ts}' ignored (no selector configured for it)`;
      if (what === 'addTasks') throw new ConfigError({ path: 'selector.params.tasksets', message: msg });
      this.notices.push(msg);
    }
    return rows;
  }

  private recomputeWeights(): void {
    const explicit = this.entries.every((e) => e.weight !== undefined);
    const raw = this.entries.map((e, i) => (explicit ? e.weight! : this.sizes[i]!));
    const total = raw.reduce((a, b) => a + b, 0);
    if (!(total > 0))
      throw new ConfigError({ path: 'selector.params.tasksets', message: 'the task-set weights sum to 0' });
    this.weights = raw.map((w) => w / total);
  }

  /** How many tasks each set gets in a batch of n (advances the carried remainders). */
  private quotas(n: number): number[] {
    const k = this.entries.length;
    const q = new Array<number>(k).fill(0);
    let given = 0;
    for (let i = 0; i < k; i++) {
      this.credits[i]! += n * this.weights[i]!;
      q[i] = Math.max(0, Math.floor(this.credits[i]! + 1e-9));
      given += q[i]!;
    }
    if (given > n) {
      // Only possible through rounding slack: take back from the smallest remainders.
      const order = [...q.keys()].sort(
        (a, b) => this.credits[a]! - q[a]! - (this.credits[b]! - q[b]!) || a - b,
      );
      for (let j = 0; given > n; j = (j + 1) % k)
        if (q[order[j]!]! > 0) {
          q[order[j]!]!--;
          given--;
        }
    }
    const salt = this.rng.nextUint32();
    const order = [...q.keys()].sort((a, b) => {
      const ra = this.credits[a]! - q[a]!;
      const rb = this.credits[b]! - q[b]!;
      return rb - ra || tieRank(a, salt) - tieRank(b, salt);
    });
    for (let j = 0; given < n; j = (j + 1) % k) {
      if (this.weights[order[j]!]! > 0 || this.weights.every((w) => w === 0)) {
        q[order[j]!]!++;
        given++;
      }
    }
    // A set cannot give more distinct tasks than it has: move the excess to sets with room.
    const total = this.sizes.reduce((a, b) => a + b, 0);
    if (n <= total) {
      let excess = 0;
      for (let i = 0; i < k; i++)
        if (q[i]! > this.sizes[i]!) {
          excess += q[i]! - this.sizes[i]!;
          q[i] = this.sizes[i]!;
        }
      for (let j = 0; excess > 0; j = (j + 1) % k) {
        const i = order[j]!;
        if (q[i]! < this.sizes[i]!) {
          q[i]!++;
          excess--;
        }
      }
    }
    // (A set held back by its size does not bank the shortfall for later batches.)
    for (let i = 0; i < k; i++) this.credits[i] = Math.min(1, this.credits[i]! - q[i]!);
    return q;
  }

  /** Each task set's quota of the batch, from its own selector, in entry order. */
  protected combine(n: number, ctx?: SelectContext): string[] {
    const q = this.quotas(n);
    const out: string[] = [];
    this.entries.forEach((e, i) => {
      if (q[i]! > 0) for (const id of e.selector.select(q[i]!, ctx)) out.push(id);
    });
    return out;
  }

  /** Each result to the selector of its task's set (by taskset when given, else by id). */
  protected override routeFeedback(
    results: readonly TaskFeedback[],
    ctx?: SelectContext,
  ): SelectorFeedbackReport {
    const slot = new Map(this.entries.map((e, i) => [e.taskset, i] as const));
    const routed: TaskFeedback[][] = this.entries.map(() => []);
    const report = emptyReport(this.feedbackCalls);
    for (const r of results) {
      const i = r.taskset !== undefined ? slot.get(r.taskset) : this.owner.get(r.taskId);
      if (i === undefined || i < 0) {
        const w =
          i === -1
            ? `task id '${r.taskId}' is in several task sets; give its taskset to route the feedback`
            : `task '${r.taskId}'${r.taskset ? ` (task set '${r.taskset}')` : ''} is not in any mixed task set; skipped`;
        report.unknownTasks++;
        report.warnings.push(w);
        this.ownUnknown++;
        this.ownWarnings.push(w);
        continue;
      }
      routed[i]!.push(r);
    }
    this.fanOut(routed, report, (i) => `${this.entries[i]!.taskset}: `, ctx);
    if (this.ownWarnings.length > 100) this.ownWarnings.splice(0, this.ownWarnings.length - 100);
    return report;
  }

  override predict(taskIds: readonly string[]): Float64Array {
    const out = new Float64Array(taskIds.length).fill(Number.NaN);
    this.entries.forEach((e, i) => {
      const mine = taskIds.map((id, j) => [id, j] as const).filter(([id]) => this.owner.get(id) === i);
      if (mine.length === 0 || !e.selector.predict) return;
      const p = e.selector.predict(mine.map(([id]) => id));
      mine.forEach(([, j], t) => {
        out[j] = p[t]!;
      });
    });
    return out;
  }

  override report(): SelectorTotals {
    const t: SelectorTotals = {
      selectCalls: this.selectCalls,
      selected: this.selected,
      feedbackCalls: this.feedbackCalls,
      groups: 0,
      rewards: 0,
      mixedGroups: 0,
      clippedRewards: 0,
      droppedRewards: 0,
      unknownTasks: 0,
      emptyGroups: 0,
      warnings: [],
      notices: [...this.notices],
    };
    for (const e of this.entries) {
      const c = e.selector.report();
      addCounts(t, c, `${e.taskset}: `);
      for (const nt of c.notices) t.notices.push(`${e.taskset}: ${nt}`);
    }
    t.unknownTasks += this.ownUnknown;
    for (const w of this.ownWarnings.slice(-100)) t.warnings.push(w);
    return t;
  }

  protected saveData(): { [key: string]: JsonValue } {
    const children: { [key: string]: JsonValue } = {};
    this.entries.forEach((e, i) => {
      children[e.taskset] = this.childState(i);
    });
    return {
      rng: this.rng.state().map((v) => v >>> 0),
      credits: [...this.credits],
      counters: [this.selectCalls, this.selected, this.feedbackCalls, this.ownUnknown],
      ownWarnings: this.ownWarnings.slice(-100),
      children,
    };
  }

  protected loadData(data: { [key: string]: JsonValue }): void {
    const { rng, credits, counters, ownWarnings, children } = data;
    if (
      !Array.isArray(rng) ||
      !Array.isArray(credits) ||
      credits.length !== this.entries.length ||
      !Array.isArray(counters) ||
      counters.length !== 4 ||
      !children ||
      typeof children !== 'object' ||
      Array.isArray(children)
    )
      throw new DataError({
        message: 'mixed.load: state.data needs rng, credits (one per task set), counters and children',
      });
    this.entries.forEach((e, i) => {
      this.loadChild(i, (children as { [key: string]: JsonValue })[e.taskset], `task set '${e.taskset}'`);
    });
    this.rng.load(rng as unknown as RngState);
    this.credits = credits.map((c) => Number(c));
    [this.selectCalls, this.selected, this.feedbackCalls, this.ownUnknown] = counters.map((c) =>
      Number(c),
    ) as [number, number, number, number];
    this.ownWarnings = Array.isArray(ownWarnings) ? ownWarnings.map(String) : [];
  }
}
