// The minimum of a convex quadratic over a rectangle, exactly: the unconstrained minimum where it
// lies inside, else the least of the four edges' one-dimensional minima. Used to bound a task's
// predictive variance over a grid cell from below (src/selectors/shared-ability.ts).

/** q(x, y) = sxx·x² + 2·sxy·x·y + syy·y² + 2·(cx·x + cy·y) + c0, convex (sxx, syy ≥ 0, sxx·syy ≥ sxy²). */
export interface Quadratic {
  sxx: number;
  sxy: number;
  syy: number;
  cx: number;
  cy: number;
  c0: number;
}

function valueAt(q: Quadratic, x: number, y: number): number {
  return q.sxx * x * x + 2 * q.sxy * x * y + q.syy * y * y + 2 * (q.cx * x + q.cy * y) + q.c0;
}

const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v));

/** The least value of q on the segment x fixed, y in [y1, y2] (the vertex where it lies inside). */
function edgeMinY(q: Quadratic, x: number, y1: number, y2: number): number {
  const ends = Math.min(valueAt(q, x, y1), valueAt(q, x, y2));
  return q.syy > 0 ? Math.min(ends, valueAt(q, x, clamp(-(q.sxy * x + q.cy) / q.syy, y1, y2))) : ends;
}

function edgeMinX(q: Quadratic, y: number, x1: number, x2: number): number {
  const ends = Math.min(valueAt(q, x1, y), valueAt(q, x2, y));
  return q.sxx > 0 ? Math.min(ends, valueAt(q, clamp(-(q.sxy * y + q.cx) / q.sxx, x1, x2), y)) : ends;
}

/** min of q over [x1, x2] × [y1, y2]. */
export function minQuadraticOnBox(q: Quadratic, x1: number, x2: number, y1: number, y2: number): number {
  const det = q.sxx * q.syy - q.sxy * q.sxy;
  if (det > 0) {
    const x = (q.sxy * q.cy - q.syy * q.cx) / det;
    const y = (q.sxy * q.cx - q.sxx * q.cy) / det;
    if (x >= x1 && x <= x2 && y >= y1 && y <= y2) return valueAt(q, x, y);
  }
  return Math.min(
    edgeMinY(q, x1, y1, y2),
    edgeMinY(q, x2, y1, y2),
    edgeMinX(q, y1, x1, x2),
    edgeMinX(q, y2, x1, x2),
  );
}
