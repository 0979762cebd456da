// Lower bounds of the shared-ability search key over a grid cell of never-observed tasks. Such a
// task's log-odds are N(m, v) with m = m0·x0 + m1·x1 + c_d and v = q_d(x0, x1) + residual variance
// (q_d convex: the variance of the dense weights' and the domain offset's linear form), and its
// key is (m − logit p*)² / (w² + v) + log(w² + v). Over a cell, the key is bounded below by its
// least value over m in the cell's range and v between a lower and an upper bound of q_d.
import type { CellIndex } from './cell-index.ts';
import { minQuadraticOnBox, type Quadratic } from './quadratic-box.ts';

export interface KeyModel {
  m0: number;
  m1: number;
  goal: number;
  w2: number;
  resVar: number;
  /** Per domain: the offset's mean, and q_d's coefficients (the shared covariance is the same for all). */
  cMean: Float64Array;
  cx: Float64Array;
  cy: Float64Array;
  c0: Float64Array;
  sxx: number;
  sxy: number;
  syy: number;
}

const EPS = 1e-9;

/** The least key over distances to the goal ≥ e and variances in [sLo, sHi] (s = w² + v). */
function leastKey(e: number, sLo: number, sHi: number): number {
  const sStar = Math.min(sHi, Math.max(sLo, e * e));
  return (e * e) / sStar + Math.log(sStar) - EPS;
}

/**
 * The key's lower bound over cell c: with the least variance taken as the residual's alone
 * (`q` null), or with q_d's least value over the cell added (exact on the box; `q` is scratch).
 */
export function cellBound(cells: CellIndex, c: number, k: KeyModel, q: Quadratic | null): number {
  const { m0, m1, sxx, sxy, syy, w2, resVar } = k;
  const d = cells.group[c]!;
  const ua = cells.uMin[c]!;
  const ub = cells.uMax[c]!;
  const va = cells.vMin[c]!;
  const vb = cells.vMax[c]!;
  const ma = m0 * ua + m1 * va;
  const mb = m0 * ua + m1 * vb;
  const mc = m0 * ub + m1 * va;
  const md = m0 * ub + m1 * vb;
  const off = k.cMean[d]! - k.goal;
  const lo = Math.min(ma, mb, mc, md) + off - EPS;
  const hi = Math.max(ma, mb, mc, md) + off + EPS;
  const e = lo > 0 ? lo : hi < 0 ? -hi : 0;
  // q_d is convex: its maximum over the cell is at a corner.
  const cx = k.cx[d]!;
  const cy = k.cy[d]!;
  const c0 = k.c0[d]!;
  const qa = ua * ua * sxx + 2 * ua * va * sxy + va * va * syy + 2 * (ua * cx + va * cy) + c0;
  const qb = ua * ua * sxx + 2 * ua * vb * sxy + vb * vb * syy + 2 * (ua * cx + vb * cy) + c0;
  const qc = ub * ub * sxx + 2 * ub * va * sxy + va * va * syy + 2 * (ub * cx + va * cy) + c0;
  const qd = ub * ub * sxx + 2 * ub * vb * sxy + vb * vb * syy + 2 * (ub * cx + vb * cy) + c0;
  const sHi = w2 + resVar + Math.max(0, qa, qb, qc, qd) + EPS;
  if (!q) return leastKey(e, w2 + resVar, sHi);
  q.sxx = sxx;
  q.sxy = sxy;
  q.syy = syy;
  q.cx = cx;
  q.cy = cy;
  q.c0 = c0;
  const vmin = minQuadraticOnBox(q, ua, ub, va, vb);
  return leastKey(e, w2 + resVar + Math.max(0, vmin - EPS * (1 + Math.abs(vmin))), sHi);
}

/** The cheap bound of every non-empty cell. */
export function cellBounds(cells: CellIndex, k: KeyModel): Float64Array {
  const lb = new Float64Array(cells.cellCount);
  for (let c = 0; c < cells.cellCount; c++) if (!cells.isEmpty(c)) lb[c] = cellBound(cells, c, k, null);
  return lb;
}
