import { ConfigError, DataError } from '../core/errors.ts';
import type { JsonValue } from '../core/task.ts';
import { CompositeSelector } from './composite.ts';
import { validateTaskView } from './task-view.ts';
import type { SelectContext, Selector, SelectorTaskView } from './types.ts';

export interface DiverseOptions {
  /** Weight of the inner selector's preference; 1 − lambda weighs dissimilarity to tasks already picked. */
  lambda: number;
  /** The embedding column of the task view (`meta.embedding`). */
  embedding: string;
  /** Candidates asked of the inner selector per task returned (n × pool). */
  pool: number;
}

/**
 * Embedding diversity for any selector, by maximal marginal relevance (Carbonell & Goldstein, 1998):
 * the inner selector proposes n × pool candidates in its order of preference; n of them are
 * picked greedily, each maximising `lambda · relevance − (1 − lambda) · max cosine similarity to
 * those already picked`, where relevance falls linearly with the candidate's rank (1 for the
 * first, → 0 for the last). Ties go to the better-ranked candidate, so the result depends only on
 * the inner selector (seeded) and the vectors. A candidate without a vector counts as unlike every
 * other. Feedback, state and predictions are the inner selector's.
 */
export class DiverseSelector extends CompositeSelector {
  readonly type = 'diverse';
  private readonly inner: Selector;
  private readonly opts: DiverseOptions;
  private readonly index = new Map<string, number>();
  private vectors: Array<Float64Array | null> = [];

  constructor(inner: Selector, opts: DiverseOptions, seed: number) {
    if (!(opts.lambda >= 0 && opts.lambda <= 1)) throw new RangeError('diverse: lambda must be in [0, 1]');
    if (!(Number.isInteger(opts.pool) && opts.pool >= 1))
      throw new RangeError('diverse: pool must be an integer ≥ 1');
    super([inner], seed);
    this.inner = inner;
    this.opts = opts;
  }

  private take(view: SelectorTaskView, where: string): void {
    validateTaskView(view, where);
    const column = view.vectors?.[this.opts.embedding];
    if (column === undefined)
      throw new ConfigError({
        path: 'selector.params.embedding',
        message: `no task carries the embedding '${this.opts.embedding}'${view.vectors ? ` (embedding columns: ${Object.keys(view.vectors).join(', ')})` : ''}`,
        hint: 'run the embed operator in the task pipeline (it writes meta.embedding), or name the meta key it wrote',
      });
    if (column.length !== view.ids.length)
      throw new DataError({
        message: `${where}: embedding '${this.opts.embedding}' has ${column.length} rows for ${view.ids.length} tasks`,
      });
    for (let i = 0; i < view.ids.length; i++) {
      this.index.set(view.ids[i]!, this.ids.length);
      this.ids.push(view.ids[i]!);
      const v = column[i];
      if (v === null || v === undefined) {
        this.vectors.push(null);
        continue;
      }
      // Unit length once here, so a similarity is a dot product.
      const u = Float64Array.from(v as ArrayLike<number>);
      const norm = Math.hypot(...u);
      this.vectors.push(norm > 0 ? u.map((x) => x / norm) : null);
    }
  }

  protected initChildren(view: SelectorTaskView): void {
    this.take(view, 'diverse.init');
    this.inner.init(view);
  }

  addTasks(view: SelectorTaskView): void {
    this.requireInit('addTasks');
    const add = this.requireAddTasks(0);
    this.take(view, 'diverse.addTasks');
    add(view);
  }

  private similarity(a: number, b: number): number {
    const x = this.vectors[a];
    const y = this.vectors[b];
    if (!x || !y || x.length !== y.length) return 0;
    let dot = 0;
    for (let i = 0; i < x.length; i++) dot += x[i]! * y[i]!;
    return dot;
  }

  /** n × pool candidates from the inner selector, n of them picked by maximal marginal relevance. */
  protected combine(n: number, ctx?: SelectContext): string[] {
    const m = Math.max(n, Math.min(this.ids.length, n * this.opts.pool));
    const candidates = this.inner.select(m, ctx);
    const rows = candidates.map((id) => this.index.get(id)!);
    const { lambda } = this.opts;
    const picked: number[] = [];
    const taken = new Array<boolean>(rows.length).fill(false);
    // maxSim[c]: the highest similarity of candidate c to anything picked so far.
    const maxSim = new Float64Array(rows.length).fill(Number.NEGATIVE_INFINITY);
    while (picked.length < Math.min(n, rows.length)) {
      let best = -1;
      let bestScore = Number.NEGATIVE_INFINITY;
      for (let c = 0; c < rows.length; c++) {
        if (taken[c]) continue;
        const relevance = 1 - c / rows.length;
        const redundancy = picked.length === 0 ? 0 : maxSim[c]!;
        const score = lambda * relevance - (1 - lambda) * redundancy;
        if (score > bestScore) {
          best = c;
          bestScore = score;
        }
      }
      taken[best] = true;
      picked.push(best);
      for (let c = 0; c < rows.length; c++)
        if (!taken[c]) maxSim[c] = Math.max(maxSim[c]!, this.similarity(rows[c]!, rows[best]!));
    }
    return picked.map((c) => candidates[c]!);
  }

  protected saveData(): { [key: string]: JsonValue } {
    return { counters: [this.selectCalls, this.selected], inner: this.childState(0) };
  }

  protected loadData(data: { [key: string]: JsonValue }): void {
    const { counters, inner } = data;
    if (!Array.isArray(counters) || counters.length !== 2 || inner === null || typeof inner !== 'object')
      throw new DataError({ message: 'diverse.load: state.data needs counters and inner' });
    this.loadChild(0, inner, 'the inner selector');
    this.selectCalls = Number(counters[0]);
    this.selected = Number(counters[1]);
  }
}
