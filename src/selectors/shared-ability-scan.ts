// The shared-ability search: every task offered to a TopK with its key −2·log E[u] + const, where
// u(η) = exp(−(η − logit p*)² / (2w²)) is a kernel of usefulness around the target and η ~ N(m, v):
//   key = (m − logit p*)² / (w² + v) + log(w² + v).
// Equal keys are ordered by a salted hash of the index. Tasks never observed depend only on their
// domain and reference log-odds: they are searched cell by cell through a grid over those, best
// lower bound first (exact); observed tasks are scored one by one.
import { autoGrid, CellIndex, CellQueue } from './cell-index.ts';
import { tieRank } from './hash-tie.ts';
import type { Quadratic } from './quadratic-box.ts';
import { cellBound, cellBounds, type KeyModel } from './shared-ability-bounds.ts';
import { type AbilityModel, logit } from './shared-ability-model.ts';
import { OB } from './shared-ability-slots.ts';
import type { TopK } from './top-k.ts';

/** The grid over never-observed tasks (built lazily; observed tasks are skipped by flag). */
export class UnobservedGrid {
  private cells: CellIndex | null = null;
  /** Observed tasks when the grid was built: rebuilt once half its members have been observed. */
  private builtAt = 0;

  /** Drop the grid (the tasks or the observed set changed wholesale). */
  reset(): void {
    this.cells = null;
  }

  get(model: AbilityModel): CellIndex {
    const observedCount = model.slots.count;
    if (this.cells && 2 * (observedCount - this.builtAt) > this.cells.items.length) this.cells = null;
    if (!this.cells) {
      this.builtAt = observedCount;
      const n = model.domain.length;
      const two = model.xd === 2;
      const u = new Float64Array(n);
      const v = new Float64Array(n);
      if (two)
        for (let k = 0; k < n; k++) {
          u[k] = model.x[2 * k]!;
          v[k] = model.x[2 * k + 1]!;
        }
      const slots = model.slots;
      this.cells = new CellIndex({
        n,
        u,
        v,
        groups: model.domain,
        include: (k) => !slots.observed[k],
        grid: model.params.grid > 0 ? model.params.grid : autoGrid(n, model.domainNames.length),
      });
    }
    return this.cells;
  }
}

/** Offer every one of the `size` tasks to `top` by its expected-usefulness key. */
export function scanTasks(
  model: AbilityModel,
  grid: UnobservedGrid,
  size: number,
  top: TopK,
  salt: number,
): void {
  const p = model.params;
  if (model.dense > 3 || model.xd === 1 || p.search === 'scan') {
    scanEveryTask(model, size, top, salt);
    return;
  }
  const shared = sharedMoments(model);
  scanObserved(model, shared, top, salt);
  scanUnobserved(model, shared, grid.get(model), top, salt);
}

/** The O(N) reference: the predictive moments of every task, one by one. */
function scanEveryTask(model: AbilityModel, size: number, top: TopK, salt: number): void {
  const p = model.params;
  const goal = logit(p.target);
  const w2 = p.width * p.width;
  const mv = new Float64Array(2);
  const phi = new Float64Array(model.dim);
  for (let k = 0; k < size; k++) {
    model.moments(k, mv, phi);
    const s = w2 + mv[1]!;
    const e = mv[0]! - goal;
    const key = (e * e) / s + Math.log(s);
    if (key <= top.bound) top.offer(key, k, tieRank(k, salt));
  }
}

/**
 * The shared posterior's parts the fast scans read, with up to three dense slots: two static
 * columns (the reference log-odds) and practice; per domain, the offset's mean and variance and its
 * covariances with the dense weights.
 */
interface SharedMoments {
  goal: number;
  w2: number;
  two: boolean;
  prac: boolean;
  m0: number;
  m1: number;
  m2: number;
  s00: number;
  s01: number;
  s11: number;
  s02: number;
  s12: number;
  s22: number;
  cMean: Float64Array;
  cVar: Float64Array;
  c0: Float64Array;
  c1: Float64Array;
  c2: Float64Array;
}

function sharedMoments(model: AbilityModel): SharedMoments {
  const p = model.params;
  const P = model.dim;
  const { mu, cov, xd } = model;
  const D = model.dense;
  const nd = model.domainNames.length;
  const two = xd === 2;
  const prac = p.practiceEffect;
  const jp = xd;
  const out: SharedMoments = {
    goal: logit(p.target),
    w2: p.width * p.width,
    two,
    prac,
    m0: two ? mu[0]! : 0,
    m1: two ? mu[1]! : 0,
    m2: prac ? mu[jp]! : 0,
    s00: two ? cov[0]! : 0,
    s01: two ? cov[1]! : 0,
    s11: two ? cov[P + 1]! : 0,
    s02: two && prac ? cov[jp]! : 0,
    s12: two && prac ? cov[P + jp]! : 0,
    s22: prac ? cov[jp * P + jp]! : 0,
    cMean: new Float64Array(nd),
    cVar: new Float64Array(nd),
    c0: new Float64Array(nd),
    c1: new Float64Array(nd),
    c2: new Float64Array(nd),
  };
  for (let d = 0; d < nd; d++) {
    const c = D + d;
    out.cMean[d] = mu[c]!;
    out.cVar[d] = cov[c * P + c]!;
    out.c0[d] = two ? cov[c]! : 0;
    out.c1[d] = two ? cov[P + c]! : 0;
    out.c2[d] = prac ? cov[jp * P + c]! : 0;
  }
  return out;
}

/** Observed tasks first (their residuals and practice differ task by task), from their slots. */
function scanObserved(model: AbilityModel, sm: SharedMoments, top: TopK, salt: number): void {
  const { goal, w2, prac, m0, m1, m2, s00, s01, s11, s02, s12, s22, cMean, cVar, c0, c1, c2 } = sm;
  const resVar = model.residualVar;
  const drift = model.params.residualDrift;
  const now = model.steps;
  const { list, columns: obF, domain: obDom, count } = model.slots;
  // ln s ≥ ln s0 + 1 − s0/s for any s0 > 0: reject without a logarithm when even that cannot win.
  const sT = w2 + 0.5 * resVar;
  const lnT = Math.log(sT) + 1;
  for (let i = 0; i < count; i++) {
    const o = i * OB;
    const d = obDom[i]!;
    const x0 = obF[o]!;
    const x1 = obF[o + 1]!;
    const x2 = prac ? obF[o + 2]! : 0;
    let rv = obF[o + 4]! + drift * (now - obF[o + 5]!);
    if (rv > resVar) rv = resVar;
    const m = m0 * x0 + m1 * x1 + m2 * x2 + cMean[d]! + obF[o + 3]!;
    const v =
      x0 * x0 * s00 +
      x1 * x1 * s11 +
      x2 * x2 * s22 +
      2 * (x0 * x1 * s01 + x0 * x2 * s02 + x1 * x2 * s12) +
      2 * (x0 * c0[d]! + x1 * c1[d]! + x2 * c2[d]!) +
      cVar[d]! +
      rv;
    const s = w2 + v;
    const e = m - goal;
    const bound = top.bound;
    if (e * e - sT > (bound - lnT) * s) continue;
    const key = (e * e) / s + Math.log(s);
    const k = list[i]!;
    if (key <= bound) top.offer(key, k, tieRank(k, salt));
  }
}

/** Never-observed tasks: m = m0·x0 + m1·x1 + c_d, v = q_d(x0, x1) + resVar with q_d convex. */
function scanUnobserved(
  model: AbilityModel,
  sm: SharedMoments,
  cells: CellIndex,
  top: TopK,
  salt: number,
): void {
  const { goal, w2, two, m0, m1, s00, s01, s11, cMean, cVar, c0, c1 } = sm;
  const resVar = model.residualVar;
  const keyModel: KeyModel = {
    m0,
    m1,
    goal,
    w2,
    resVar,
    cMean,
    cx: c0,
    cy: c1,
    c0: cVar,
    sxx: s00,
    sxy: s01,
    syy: s11,
  };
  const lb = cellBounds(cells, keyModel);
  const queue = new CellQueue(cells, lb);
  const x = model.x;
  const observed = model.slots.observed;
  const want = top.capacity;
  const lnW2 = Math.log(w2 + resVar);
  const q: Quadratic = { sxx: 0.5, sxy: 0.5, syy: 0.5, cx: 0.5, cy: 0.5, c0: 0.5 };
  // Cells in a row the tighter bound failed to skip: past a few, it is not worth its cost.
  let misses = 0;
  for (let c = queue.pop(); c >= 0; c = queue.pop()) {
    if (top.size >= want && lb[c]! > top.bound) break;
    const d = cells.group[c]!;
    // The cheap bound takes the least variance as the residual's alone; the shared part's least
    // value over the cell tightens it (it skips cells while the posterior is wide: early steps).
    if (top.size >= want && two && misses < 16) {
      if (cellBound(cells, c, keyModel, q) > top.bound) {
        misses = 0;
        continue;
      }
      misses++;
    }
    const cm = cMean[d]!;
    const cv = cVar[d]! + resVar;
    const cc0 = c0[d]!;
    const cc1 = c1[d]!;
    for (let j = cells.start[c]!; j < cells.start[c + 1]!; j++) {
      const k = cells.items[j]!;
      if (observed[k]) continue;
      const x0 = two ? x[2 * k]! : 0;
      const x1 = two ? x[2 * k + 1]! : 0;
      const m = m0 * x0 + m1 * x1 + cm;
      const v = x0 * x0 * s00 + 2 * x0 * x1 * s01 + x1 * x1 * s11 + 2 * (x0 * cc0 + x1 * cc1) + cv;
      const s = w2 + v;
      const e = m - goal;
      const bound = top.bound;
      // ln s ≥ ln s0 + 1 − s0/s (s0 = w² + residual variance): reject without a logarithm.
      if (e * e - (w2 + resVar) > (bound - lnW2 - 1) * s) continue;
      const key = (e * e) / s + Math.log(s);
      if (key <= bound) top.offer(key, k, tieRank(k, salt));
    }
  }
}
