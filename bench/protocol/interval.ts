// Paired-seed intervals of the protocol: every method runs on the same seeds, so a comparison is the
// per-seed difference (method − other on that seed), summarised by its mean and a seeded 90%
// percentile bootstrap over the seeds.
import { Rng } from '../../src/core/rng.ts';

export interface PairedInterval {
  /** Mean of the per-seed differences. */
  mean: number;
  /** 5th and 95th percentiles of the bootstrap distribution of that mean. */
  lo: number;
  hi: number;
  /** Seeds paired. */
  n: number;
}

/** Resamples of the bootstrap (fixed, so every table is reproducible digit for digit). */
export const BOOTSTRAP_DRAWS = 4000;

/**
 * Mean of a[i] − b[i] with a 90% percentile bootstrap interval over the pairs (`BOOTSTRAP_DRAWS`
 * resamples of the seeds with replacement, drawn from `Rng(label)`). One pair gives a zero-width
 * interval at its difference; no pairs give NaN.
 */
export function pairedDifference(a: readonly number[], b: readonly number[], label: string): PairedInterval {
  if (a.length !== b.length) throw new Error(`paired samples differ in length: ${a.length} vs ${b.length}`);
  const n = a.length;
  if (n === 0) return { mean: Number.NaN, lo: Number.NaN, hi: Number.NaN, n: 0 };
  const d = a.map((x, i) => x - b[i]!);
  const mean = d.reduce((s, x) => s + x, 0) / n;
  const rng = new Rng(`protocol-bootstrap:${label}`);
  const means = new Float64Array(BOOTSTRAP_DRAWS);
  for (let r = 0; r < BOOTSTRAP_DRAWS; r++) {
    let s = 0;
    for (let i = 0; i < n; i++) s += d[rng.int(n)]!;
    means[r] = s / n;
  }
  means.sort();
  return { mean, lo: quantile(means, 0.05), hi: quantile(means, 0.95), n };
}

/** The q-quantile of sorted values, by the nearest rank below (no interpolation). */
function quantile(sorted: Float64Array, q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.floor(q * sorted.length)))]!;
}

export interface RatioInterval {
  /** Σ a / Σ b over the pairs. */
  ratio: number;
  lo: number;
  hi: number;
}

/** Ratio of sums Σa / Σb with a 90% percentile bootstrap over the pairs (seeded as pairedDifference). */
export function pairedRatio(a: readonly number[], b: readonly number[], label: string): RatioInterval {
  if (a.length !== b.length) throw new Error(`paired samples differ in length: ${a.length} vs ${b.length}`);
  const n = a.length;
  const sum = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0);
  if (n === 0 || sum(b) === 0) return { ratio: Number.NaN, lo: Number.NaN, hi: Number.NaN };
  const rng = new Rng(`protocol-ratio:${label}`);
  const ratios: number[] = [];
  for (let r = 0; r < BOOTSTRAP_DRAWS; r++) {
    let sa = 0;
    let sb = 0;
    for (let i = 0; i < n; i++) {
      const k = rng.int(n);
      sa += a[k]!;
      sb += b[k]!;
    }
    if (sb > 0) ratios.push(sa / sb);
  }
  const sorted = Float64Array.from(ratios).sort();
  return { ratio: sum(a) / sum(b), lo: quantile(sorted, 0.05), hi: quantile(sorted, 0.95) };
}
