/**
 * LSH banding: how many bands of how many rows a MinHash signature is cut into. A pair with
 * Jaccard similarity s shares at least one band with probability 1 − (1 − s^rows)^bands (the
 * S-curve).
 *
 * `optimalBanding` picks (bands, rows) the way Data-Juicer's `document_minhash_deduplicator` does
 * when the recipe does not give both: over every bands × rows ≤ permutations, the pair that
 * minimises the weighted area of false positives (the S-curve below the threshold) plus false
 * negatives (one minus the S-curve above it). With 256 permutations and threshold 0.7 that is 25
 * bands × 10 rows (6 permutations unused by the bands).
 */

export interface Banding {
  bands: number;
  rows: number;
}

/** Probability that a pair of Jaccard similarity `s` shares at least one band. */
export function bandingCatchProbability(s: number, b: Banding): number {
  return 1 - (1 - s ** b.rows) ** b.bands;
}

/** Gauss–Legendre nodes and weights on [-1, 1], 16 points; applied on 8 pieces of the interval. */
const GL_NODES = [
  -0.9894009349916499, -0.9445750230732326, -0.8656312023878318, -0.755404408355003, -0.6178762444026438,
  -0.4580167776572274, -0.2816035507792589, -0.0950125098376374, 0.0950125098376374, 0.2816035507792589,
  0.4580167776572274, 0.6178762444026438, 0.755404408355003, 0.8656312023878318, 0.9445750230732326,
  0.9894009349916499,
];
const GL_WEIGHTS = [
  0.0271524594117541, 0.0622535239386479, 0.0951585116824928, 0.1246289712555339, 0.1495959888165767,
  0.1691565193950025, 0.1826034150449236, 0.1894506104550685, 0.1894506104550685, 0.1826034150449236,
  0.1691565193950025, 0.1495959888165767, 0.1246289712555339, 0.0951585116824928, 0.0622535239386479,
  0.0271524594117541,
];
const PIECES = 8;

/** ∫ f over [a, b]: composite 16-point Gauss–Legendre (8 × 16 points): picks the same banding as an adaptive quadrature on every (threshold, permutations) of the tests. */
function integrate(f: (s: number) => number, a: number, b: number): number {
  if (b <= a) return 0;
  const h = (b - a) / PIECES;
  let sum = 0;
  for (let p = 0; p < PIECES; p++) {
    const mid = a + (p + 0.5) * h;
    for (let i = 0; i < GL_NODES.length; i++) sum += GL_WEIGHTS[i]! * f(mid + (GL_NODES[i]! * h) / 2);
  }
  return (sum * h) / 2;
}

/** The weighted false-positive plus false-negative area of a banding at `threshold`. */
export function bandingError(threshold: number, b: Banding, fpWeight = 0.5, fnWeight = 0.5): number {
  const catchAt = (s: number) => bandingCatchProbability(s, b);
  const falsePositive = integrate(catchAt, 0, threshold);
  const falseNegative = integrate((s) => 1 - catchAt(s), threshold, 1);
  return falsePositive * fpWeight + falseNegative * fnWeight;
}

/**
 * The (bands, rows) with bands × rows ≤ permutations that minimises `bandingError`; the first
 * found wins a tie (bands ascending, then rows ascending), as in Data-Juicer's search.
 */
export function optimalBanding(
  threshold: number,
  permutations: number,
  fpWeight = 0.5,
  fnWeight = 0.5,
): Banding {
  const key = `${threshold}/${permutations}/${fpWeight}/${fnWeight}`;
  const known = optimalCache.get(key);
  if (known) return { ...known };
  let best: Banding = { bands: 1, rows: 1 };
  let bestError = Number.POSITIVE_INFINITY;
  for (let bands = 1; bands <= permutations; bands++) {
    const maxRows = Math.floor(permutations / bands);
    for (let rows = 1; rows <= maxRows; rows++) {
      const error = bandingError(threshold, { bands, rows }, fpWeight, fnWeight);
      if (error < bestError) {
        bestError = error;
        best = { bands, rows };
      }
    }
  }
  optimalCache.set(key, best);
  return { ...best };
}

/** The search costs ~0.1 s for 256 permutations, and a recipe is translated to validate, then to run. */
const optimalCache = new Map<string, Banding>();
