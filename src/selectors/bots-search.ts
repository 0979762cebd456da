// BOTS's exact search for the best tasks by a posterior score, without scoring every task: tasks
// stored one by one are scored one by one, tasks on the shared track through the (f0, f1) grid,
// and tasks on a clipped track group by group; a grid cell or a group is skipped whole when a lower
// bound of its score already loses.
import type { ClipSide, TrackScalars } from './bots-clip-side.ts';
import { type CellIndex, CellQueue } from './cell-index.ts';
import { tieRank } from './hash-tie.ts';
import type { TopK } from './top-k.ts';

/** Where each task's posterior lives (src/selectors/bots.ts keeps these). */
export const SHARED = 0;
export const EXPLICIT = 1;
export const GROUPED_BELOW = 2;
export const GROUPED_ABOVE = 3;

export interface BotsPosteriorView {
  target: number;
  n: number;
  f0: Float64Array;
  delta: Float64Array;
  /** SHARED, EXPLICIT, GROUPED_BELOW or GROUPED_ABOVE per task. */
  state: Uint8Array;
  exTask: Int32Array;
  exA: Float64Array;
  exB: Float64Array;
  explicitCount: number;
  shared: TrackScalars;
  sides: readonly ClipSide[] | null;
  cells: CellIndex | null;
  /** α and β of any task (used where there is no grid). */
  alphaOf(k: number): number;
  betaOf(k: number): number;
}

export type ScoreKind = 'mean' | 'density';

/**
 * Lower bound of the score over posterior means in [lo, hi] with α + β = s: |p* − mean| ('mean'),
 * or the normal approximation's −log density at p*, d²/(2v) + ½·ln v with
 * v = mean(1 − mean)/(s + 1) ('density').
 */
export function scoreLowerBound(lo: number, hi: number, s: number, target: number, kind: ScoreKind): number {
  const dmin = target < lo ? lo - target : target > hi ? target - hi : 0;
  if (kind === 'mean') return dmin - 1e-12;
  const q = (x: number) => (Math.min(1, Math.max(0, x)) * (1 - Math.min(1, Math.max(0, x)))) / (s + 1);
  const vlo = Math.min(q(lo), q(hi));
  const vhi = lo <= 0.5 && hi >= 0.5 ? 0.25 / (s + 1) : Math.max(q(lo), q(hi));
  const vstar = Math.min(vhi, Math.max(vlo, dmin * dmin));
  return vstar <= 0 ? Number.NEGATIVE_INFINITY : (dmin * dmin) / (2 * vstar) + 0.5 * Math.log(vstar) - 1e-9;
}

/** Widening of a mean range, so rounding in the per-task formula never falls outside it. */
const EPS = 1e-12;

/**
 * Offer every task that can make the best `k` by `kind` to `top` (exact: only what cannot win is
 * skipped). Ties go by index (salt null) or by a salted hash.
 */
export function bestByKey(
  v: BotsPosteriorView,
  k: number,
  kind: ScoreKind,
  salt: number | null,
  top: TopK,
): void {
  const target = v.target;
  const kindMean = kind === 'mean';
  const cells = v.cells;
  if (!cells) {
    for (let i = 0; i < v.n; i++) {
      const a = v.alphaOf(i);
      const sum = a + v.betaOf(i);
      const mean = a / sum;
      const d = mean - target;
      const variance = (mean * (1 - mean)) / (sum + 1);
      const key = kindMean ? Math.abs(d) : (d * d) / (2 * variance) + 0.5 * Math.log(variance);
      if (key <= top.bound) top.offer(key, i, salt === null ? i : tieRank(i, salt));
    }
    return;
  }
  const shared = v.shared;
  // ln v ≥ ln v0 + 1 − v0/v, so key ≥ (d² − v0)/(2v) + ½(ln v0 + 1): a cheap rejection test
  // (any v0 > 0 works; the closer to the typical variance, the more it rejects).
  const v0 = 0.25 / (shared.a + shared.a2 + shared.b + 1);
  const half = 0.5 * (Math.log(v0) + 1);
  const offer = (a: number, b: number, i: number): void => {
    const sum = a + b;
    const mean = a / sum;
    const d = mean - target;
    const bound = top.bound;
    let key: number;
    if (kindMean) key = d < 0 ? -d : d;
    else {
      const variance = (mean * (1 - mean)) / (sum + 1);
      if (d * d - v0 > 2 * variance * (bound - half)) return;
      key = (d * d) / (2 * variance) + 0.5 * Math.log(variance);
    }
    if (key <= bound) top.offer(key, i, salt === null ? i : tieRank(i, salt));
  };
  for (let j = 0; j < v.explicitCount; j++) offer(v.exA[j]!, v.exB[j]!, v.exTask[j]!);
  const { f0, delta, state } = v;
  scanTrack(v, cells, kind, k, top, offer);
  if (!v.sides) return;
  for (const side of v.sides) {
    const code = side.below ? GROUPED_BELOW : GROUPED_ABOVE;
    for (let gi = 0; gi < side.groups.length; gi++) {
      const g = side.groups[gi]!;
      // A group restored from a state older than groups holds no tasks.
      if (Number.isNaN(g.a)) continue;
      const [lo, hi] = side.meanRange(gi);
      const lb = scoreLowerBound(lo - EPS, hi + EPS, g.a + g.a2 + g.b, target, kind);
      if (top.size >= k && lb > top.bound) continue;
      for (let j = side.startOf(gi); j < g.end; j++) {
        const i = side.task[j]!;
        if (state[i] !== code) continue;
        offer(g.a + g.b * f0[i]! + g.e * delta[i]!, g.a2 + g.b * (1 - f0[i]!) - g.e * delta[i]!, i);
      }
    }
  }
}

/** The shared track's tasks, cell by cell in order of a lower bound of their score. */
function scanTrack(
  v: BotsPosteriorView,
  cells: CellIndex,
  kind: ScoreKind,
  k: number,
  top: TopK,
  offer: (a: number, b: number, i: number) => void,
): void {
  // Tasks on the track share s = a + a2 + b; mean = (a + (b − e)·f0 + e·f1) / s is linear in (f0, f1).
  const { a: A, a2: A2, b: B, e: E } = v.shared;
  const s = A + A2 + B;
  const cf0 = (B - E) / s;
  const cf1 = E / s;
  const c0 = A / s;
  const lb = new Float64Array(cells.cellCount);
  for (let c = 0; c < cells.cellCount; c++) {
    if (cells.isEmpty(c)) continue;
    const m1 = c0 + cf0 * cells.uMin[c]! + cf1 * cells.vMin[c]!;
    const m2 = c0 + cf0 * cells.uMin[c]! + cf1 * cells.vMax[c]!;
    const m3 = c0 + cf0 * cells.uMax[c]! + cf1 * cells.vMin[c]!;
    const m4 = c0 + cf0 * cells.uMax[c]! + cf1 * cells.vMax[c]!;
    lb[c] = scoreLowerBound(
      Math.min(m1, m2, m3, m4) - EPS,
      Math.max(m1, m2, m3, m4) + EPS,
      s,
      v.target,
      kind,
    );
  }
  const queue = new CellQueue(cells, lb);
  const { f0, delta, state } = v;
  for (let c = queue.pop(); c >= 0; c = queue.pop()) {
    if (top.size >= k && lb[c]! > top.bound) break;
    for (let j = cells.start[c]!; j < cells.start[c + 1]!; j++) {
      const i = cells.items[j]!;
      if (state[i] !== SHARED) continue;
      offer(A + B * f0[i]! + E * delta[i]!, A2 + B * (1 - f0[i]!) - E * delta[i]!, i);
    }
  }
}
