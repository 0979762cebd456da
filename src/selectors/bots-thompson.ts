// BOTS's exact Thompson step without a draw per task. A step takes the B tasks whose posterior draw
// X lands nearest the target p*. Once B draws are in hand, only a task whose draw would land within
// r (the B-th best distance so far) of p* can change the batch, and r only shrinks. So each group
// of tasks — a grid cell of the shared track, a clipped group — is visited once with the current
// window W = [p* − r, p* + r], and each of its tasks becomes a candidate with a probability q that
// bounds P(X ∈ W) for every task of the group (Bernoulli draws by geometric skips: O(1 + candidates)):
// - q = |W| · (a bound of the group's densities over W): a candidate takes a uniform point of W,
//   kept with probability density / bound — so a task is kept with probability P(X ∈ W), at a
//   point distributed as X given X ∈ W;
// - q = the sub-Gaussian tail bound, for groups whose means lie far from W: a candidate is kept
//   with probability P(X ∈ W) / q and drawn from the Beta conditioned on W.
// Where q is large, the group's tasks are drawn directly. Tasks stored one by one are drawn
// directly. Every task ends in the batch with the probability a draw for every task would give it.

import { betaDensity } from '../core/beta-dist.ts';
import { betaDensityBound, betaInWindow, betaMass, betaTailBound } from '../core/beta-window.ts';
import type { Rng } from '../core/rng.ts';
import type { TrackScalars } from './bots-clip-side.ts';
import {
  type BotsPosteriorView,
  GROUPED_ABOVE,
  GROUPED_BELOW,
  SHARED,
  scoreLowerBound,
} from './bots-search.ts';
import { CellQueue } from './cell-index.ts';
import type { TopK } from './top-k.ts';

/**
 * Which path a group takes (any choice is exact; these only trade work). `direct`: above this
 * candidate probability its tasks are drawn directly. `rare`: below this many expected candidates
 * the tail bound alone decides (no density bound to compute). `force`: tests send every group
 * through one path.
 */
export const THOMPSON_TUNING: { direct: number; rare: number; force: 'tail' | 'density' | null } = {
  direct: 0.25,
  rare: 0.05,
  force: null,
};
/** Widening of a group's mean range, so rounding in the per-task formula never falls outside it. */
const EPS = 1e-12;

/** How a step reached its tasks: drawn directly, or as candidates of the density or the tail bound. */
export interface ThompsonPaths {
  direct: number;
  density: number;
  tail: number;
}

/**
 * The batch of a Thompson step: the `top.capacity` tasks whose draws land nearest p* (ties by
 * index), into `top`. Returns how many tasks each path handled.
 */
export function thompsonTopK(v: BotsPosteriorView, rng: Rng, top: TopK): ThompsonPaths {
  const step = new ThompsonStep(v, rng, top);
  for (let j = 0; j < v.explicitCount; j++) step.offer(rng.beta(v.exA[j]!, v.exB[j]!), v.exTask[j]!);
  step.visitSharedCells();
  step.visitClipGroups();
  return step.paths;
}

/** The window a group is visited with, and the candidate probability q that bounds P(X ∈ W). */
interface GroupPlan {
  x1: number;
  x2: number;
  q: number;
  /** q is the tail bound (else |W| times a density bound). */
  tail: boolean;
}

/** One Thompson step's draws, offered to `top` (the tasks nearest p* so far). */
class ThompsonStep {
  readonly paths: ThompsonPaths;
  private readonly v: BotsPosteriorView;
  private readonly rng: Rng;
  private readonly top: TopK;
  private readonly p: number;

  constructor(v: BotsPosteriorView, rng: Rng, top: TopK) {
    this.v = v;
    this.rng = rng;
    this.top = top;
    this.paths = { direct: v.explicitCount, density: 0, tail: 0 };
    this.p = v.target;
  }

  offer(x: number, k: number): void {
    const key = Math.abs(this.p - x);
    if (key <= this.top.bound) this.top.offer(key, k);
  }

  /** Shared track: cells in order of their best density score at p*, so r shrinks early. */
  visitSharedCells(): void {
    const { v } = this;
    const cells = v.cells!;
    const { a: A, a2: A2, b: B, e: E } = v.shared;
    const s = A + A2 + B;
    const lb = new Float64Array(cells.cellCount);
    const range = (c: number): [number, number] => {
      const m1 = (A + (B - E) * cells.uMin[c]! + E * cells.vMin[c]!) / s;
      const m2 = (A + (B - E) * cells.uMin[c]! + E * cells.vMax[c]!) / s;
      const m3 = (A + (B - E) * cells.uMax[c]! + E * cells.vMin[c]!) / s;
      const m4 = (A + (B - E) * cells.uMax[c]! + E * cells.vMax[c]!) / s;
      return [Math.min(m1, m2, m3, m4) - EPS, Math.max(m1, m2, m3, m4) + EPS];
    };
    for (let c = 0; c < cells.cellCount; c++) {
      if (cells.isEmpty(c)) continue;
      const [lo, hi] = range(c);
      lb[c] = scoreLowerBound(lo, hi, s, this.p, 'density');
    }
    const queue = new CellQueue(cells, lb);
    const state = v.state;
    for (let c = queue.pop(); c >= 0; c = queue.pop()) {
      const [lo, hi] = range(c);
      this.visit(s, lo, hi, cells.items, cells.start[c]!, cells.start[c + 1]!, (k) =>
        state[k] === SHARED ? v.shared : null,
      );
    }
  }

  /** The clipped tracks, group by group. */
  visitClipGroups(): void {
    const state = this.v.state;
    for (const side of this.v.sides ?? []) {
      const code = side.below ? GROUPED_BELOW : GROUPED_ABOVE;
      for (let gi = 0; gi < side.groups.length; gi++) {
        const g = side.groups[gi]!;
        if (Number.isNaN(g.a)) continue;
        const [lo, hi] = side.meanRange(gi);
        this.visit(g.a + g.a2 + g.b, lo - EPS, hi + EPS, side.task, side.startOf(gi), g.end, (k) =>
          state[k] === code ? g : null,
        );
      }
    }
  }

  /** The window W = [p* − r, p* + r] now, and the cheaper of the two bounds of P(X ∈ W) over a group. */
  private plan(s: number, lo: number, hi: number, size: number): GroupPlan {
    const r = this.top.bound;
    const x1 = Math.max(0, this.p - r);
    const x2 = Math.min(1, this.p + r);
    const far = hi < x1 ? x1 - hi : lo > x2 ? lo - x2 : 0;
    const { rare, force } = THOMPSON_TUNING;
    let q = betaTailBound(s, far);
    let tail = true;
    if (force === 'density' || (force === null && q * size > rare)) {
      const dens = (x2 - x1) * betaDensityBound(s, Math.max(lo, 0), Math.min(hi, 1), x1, x2);
      if (dens < q || force === 'density') {
        q = dens;
        tail = false;
      }
    }
    return { x1, x2, q, tail };
  }

  /**
   * One group: tasks items[from..to) whose track (null: not on this group's track) has sum s and
   * means in [lo, hi].
   */
  private visit(
    s: number,
    lo: number,
    hi: number,
    items: Int32Array,
    from: number,
    to: number,
    trackOf: (k: number) => TrackScalars | null,
  ): void {
    const plan = this.plan(s, lo, hi, to - from);
    // The density path needs q ≤ 1 (a candidate probability); the tail path takes q = 1 as "all".
    if (plan.q >= THOMPSON_TUNING.direct || (!plan.tail && plan.q >= 1)) {
      for (let j = from; j < to; j++) {
        const k = items[j]!;
        const t = trackOf(k);
        if (t) this.offer(this.rng.beta(this.alpha(t, k), this.beta(t, k)), k);
      }
      this.paths.direct += to - from;
      return;
    }
    this.drawCandidates(plan, items, from, to, trackOf);
  }

  /** Bernoulli(q) at each position (jumping over the misses, a geometric number of them); each candidate kept as the plan says. */
  private drawCandidates(
    plan: GroupPlan,
    items: Int32Array,
    from: number,
    to: number,
    trackOf: (k: number) => TrackScalars | null,
  ): void {
    const { x1, x2, q, tail } = plan;
    const rng = this.rng;
    const peak = tail ? 0 : q / (x2 - x1);
    const logMiss = Math.log1p(-q);
    for (let j = from + Math.floor(Math.log(1 - rng.float()) / logMiss); j < to; ) {
      const k = items[j]!;
      const t = trackOf(k);
      if (t) {
        if (tail) this.paths.tail++;
        else this.paths.density++;
        const a = this.alpha(t, k);
        const b = this.beta(t, k);
        if (tail) {
          const mass = betaMass(a, b, x1, x2);
          if (rng.float() * q < mass) this.offer(betaInWindow(a, b, x1, x2, rng.float()), k);
        } else {
          const x = x1 + rng.float() * (x2 - x1);
          if (rng.float() * peak < betaDensity(x, a, b)) this.offer(x, k);
        }
      }
      j += 1 + Math.floor(Math.log(1 - rng.float()) / logMiss);
    }
  }

  private alpha(t: TrackScalars, k: number): number {
    return t.a + t.b * this.v.f0[k]! + t.e * this.v.delta[k]!;
  }

  private beta(t: TrackScalars, k: number): number {
    return t.a2 + t.b * (1 - this.v.f0[k]!) - t.e * this.v.delta[k]!;
  }
}
