import { ConfigError, WinnowError } from '../../core/errors.ts';
import type { Rng } from '../../core/rng.ts';
import { BaseSelector } from '../base.ts';
import type { SelectContext, SelectorFeedbackReport, SelectorTaskView, TaskFeedback } from '../types.ts';

/**
 * What the published-method selectors (the "zoo") share beyond BaseSelector: the clipped rewards
 * of each group of the current feedback call (several methods score a group by its reward
 * variance or mean |advantage|, which the base's batch means cannot give), and a clear refusal of
 * tasks added mid-run (the methods' papers fix the prompt set up front).
 */
export abstract class ZooSelector extends BaseSelector {
  /** Clipped, finite rewards of each task in the current feedback call (index → rewards). */
  protected groupRewards = new Map<number, number[]>();

  override feedback(results: readonly TaskFeedback[], ctx?: SelectContext): SelectorFeedbackReport {
    this.groupRewards = new Map();
    const [lo, hi] = this.rewardRange;
    for (const r of results) {
      const k = this.index.get(r.taskId);
      if (k === undefined) continue;
      const list = this.groupRewards.get(k) ?? [];
      for (const v of r.rewards) if (Number.isFinite(v)) list.push(Math.min(hi, Math.max(lo, v)));
      if (list.length > 0) this.groupRewards.set(k, list);
    }
    try {
      return super.feedback(results, ctx);
    } finally {
      this.groupRewards = new Map();
    }
  }

  protected override onAddTasks(_view: SelectorTaskView, _offset: number): void {
    throw new WinnowError(
      `${this.type}: tasks cannot be added mid-run (the method fixes its prompt set); start a new run with all tasks`,
    );
  }
}

/** Population variance of a group's rewards. */
export function groupVariance(rewards: readonly number[]): number {
  const n = rewards.length;
  if (n === 0) return 0;
  let s = 0;
  for (const r of rewards) s += r;
  const m = s / n;
  let v = 0;
  for (const r of rewards) v += (r - m) * (r - m);
  return v / n;
}

/**
 * Mean |advantage| of a group. `normalised`: GRPO's (r − mean) / std (0 when every reward is
 * equal); otherwise the plain group-baseline advantage r − mean.
 */
export function meanAbsAdvantage(rewards: readonly number[], normalised: boolean): number {
  const n = rewards.length;
  if (n === 0) return 0;
  let s = 0;
  for (const r of rewards) s += r;
  const m = s / n;
  let dev = 0;
  for (const r of rewards) dev += Math.abs(r - m);
  dev /= n;
  if (!normalised) return dev;
  const sd = Math.sqrt(groupVariance(rewards));
  return sd > 0 ? dev / sd : 0;
}

/** k distinct uniform indices in [0, n) not in `taken` (rejection; falls back to a scan). */
export function distinctUniform(rng: Rng, n: number, k: number, taken: Set<number>): number[] {
  const out: number[] = [];
  let tries = 0;
  while (out.length < k && taken.size < n && tries < 64 * (k + 1)) {
    const i = rng.int(n);
    tries++;
    if (taken.has(i)) continue;
    taken.add(i);
    out.push(i);
  }
  for (let i = 0; out.length < k && i < n; i++)
    if (!taken.has(i)) {
      taken.add(i);
      out.push(i);
    }
  return out;
}

/** One draw from a discrete distribution given by non-negative weights (null when all are 0). */
export function drawWeighted(rng: Rng, weights: ArrayLike<number>): number | null {
  let total = 0;
  for (let i = 0; i < weights.length; i++) total += weights[i]!;
  if (!(total > 0)) return null;
  let u = rng.float() * total;
  for (let i = 0; i < weights.length; i++) {
    u -= weights[i]!;
    if (u < 0) return i;
  }
  for (let i = weights.length - 1; i >= 0; i--) if (weights[i]! > 0) return i;
  return null;
}

/**
 * Integer category of every task: the domain (`'domain'`) or the distinct values of a feature
 * column (e.g. a difficulty level). Returns the codes and the category names, in first-seen order.
 */
export function taskCategories(
  view: SelectorTaskView,
  category: string,
  who: string,
): { codes: Int32Array; names: string[] } {
  const n = view.ids.length;
  const codes = new Int32Array(n);
  const names: string[] = [];
  const seen = new Map<string, number>();
  let values: ArrayLike<string | number> | undefined;
  if (category === 'domain') values = view.domains;
  else values = view.features[category];
  if (values === undefined)
    throw new ConfigError({
      path: `selector.params.category`,
      message: `${who}: the tasks have no ${category === 'domain' ? 'domains' : `feature column '${category}'`}`,
      hint: `known columns: domain, ${Object.keys(view.features).join(', ') || '(none)'}`,
    });
  for (let i = 0; i < n; i++) {
    const key = String(values[i]);
    let c = seen.get(key);
    if (c === undefined) {
      c = names.length;
      seen.set(key, c);
      names.push(key);
    }
    codes[i] = c;
  }
  return { codes, names };
}

/** Task indices per category code. */
export function membersByCategory(codes: Int32Array, count: number): Int32Array[] {
  const sizes = new Int32Array(count);
  for (let i = 0; i < codes.length; i++) sizes[codes[i]!]!++;
  const out = Array.from({ length: count }, (_, c) => new Int32Array(sizes[c]!));
  const at = new Int32Array(count);
  for (let i = 0; i < codes.length; i++) {
    const c = codes[i]!;
    out[c]![at[c]!++] = i;
  }
  return out;
}

/**
 * Draw `n` distinct tasks by first drawing a category from `probs` for each slot, then a task
 * uniformly within it (categories whose tasks are all taken are skipped for the rest of the batch).
 */
export function drawByCategory(rng: Rng, members: Int32Array[], probs: Float64Array, n: number): Int32Array {
  const total = members.reduce((a, m) => a + m.length, 0);
  const want = Math.min(n, total);
  const taken = new Set<number>();
  const used = new Int32Array(members.length);
  const w = Float64Array.from(probs);
  const out: number[] = [];
  while (out.length < want) {
    let c = drawWeighted(rng, w);
    if (c === null) {
      // Every weighted category is exhausted: spread the rest over categories with tasks left.
      for (let j = 0; j < members.length; j++) w[j] = used[j]! < members[j]!.length ? 1 : 0;
      c = drawWeighted(rng, w);
      if (c === null) break;
    }
    const m = members[c]!;
    let picked = -1;
    for (let tries = 0; tries < 32 && picked < 0; tries++) {
      const t = m[rng.int(m.length)]!;
      if (!taken.has(t)) picked = t;
    }
    if (picked < 0)
      for (const t of m)
        if (!taken.has(t)) {
          picked = t;
          break;
        }
    if (picked < 0) {
      w[c] = 0;
      continue;
    }
    taken.add(picked);
    used[c]!++;
    if (used[c]! >= m.length) w[c] = 0;
    out.push(picked);
  }
  const res = Int32Array.from(out);
  if (res.length === n) return res;
  // A batch larger than the task set: repeat whole rounds.
  const full = new Int32Array(n);
  for (let i = 0; i < n; i++) full[i] = res[i % res.length]!;
  return full;
}

/** Repeat a shorter pick cyclically up to n entries (batches larger than the task set). */
export function fillTo(picked: ArrayLike<number>, n: number): Int32Array {
  const out = new Int32Array(n);
  for (let i = 0; i < n; i++) out[i] = picked[i % picked.length]!;
  return out;
}

/** Softmax of x / tau (max-shifted), as probabilities. */
export function softmax(x: ArrayLike<number>, tau: number): Float64Array {
  const out = new Float64Array(x.length);
  let max = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < x.length; i++) if (x[i]! > max) max = x[i]!;
  let s = 0;
  for (let i = 0; i < x.length; i++) {
    out[i] = Math.exp((x[i]! - max) / tau);
    s += out[i]!;
  }
  for (let i = 0; i < x.length; i++) out[i]! /= s;
  return out;
}
