/**
 * Fixed-bin histograms for streaming runs. The range of a 10M-row run is unknown until it ends, so
 * the bins cannot be fitted to the data; instead they are fixed up front and cover every value:
 *
 * - lengths: decimal log-scale bins with round edges — 0, 1, …, 9, then 10–14, 15–19, …, 95–99,
 *   100–149, …, 950–999, 1,000–1,499, … up to 10^9 (18 bins per decade, 155 in all; the renderer
 *   shows only the span that holds data);
 * - scores in [0, 1] (difficulty): equal-width bins, with counts below and above the range kept
 *   beside them so an out-of-range feature is visible rather than clamped.
 *
 * Memory is a fixed number of counters whatever the row count.
 */

/** Largest decade with its own bins: values ≥ 10^MAX_DECADE share the last bin. */
const MAX_DECADE = 9;
/** Bins per decade from 10 up: each decade [b, 10b) is cut in steps of b/2 (100, 150, 200, …). */
const PER_DECADE = 18;
export const LENGTH_BINS = 10 + (MAX_DECADE - 1) * PER_DECADE + 1;

/** Bin of a non-negative integer length (fractions are floored; negatives count as 0). */
export function lengthBin(value: number): number {
  const v = Math.max(0, Math.floor(value));
  if (v < 10) return v;
  let decade = 1;
  let base = 10;
  while (decade < MAX_DECADE - 1 && v >= base * 10) {
    base *= 10;
    decade++;
  }
  if (v >= base * 10) return LENGTH_BINS - 1;
  return 10 + (decade - 1) * PER_DECADE + (Math.floor(v / (base / 2)) - 2);
}

/** The smallest value in bin `i`, and the first value past it (`Infinity` for the last bin). */
export function lengthBinRange(i: number): [number, number] {
  if (i < 10) return [i, i + 1];
  if (i === LENGTH_BINS - 1) return [10 ** MAX_DECADE, Number.POSITIVE_INFINITY];
  const decade = Math.floor((i - 10) / PER_DECADE) + 1;
  const half = 10 ** decade / 2;
  const lo = (((i - 10) % PER_DECADE) + 2) * half;
  return [lo, lo + half];
}

/** Summary statistics and bin counts of one streamed quantity. */
export interface HistogramSummary {
  count: number;
  min: number | null;
  max: number | null;
  mean: number | null;
  /** Counts per fixed bin (see `lengthBinRange` / `scoreBinRange`). */
  bins: number[];
}

export interface ScoreHistogramSummary extends HistogramSummary {
  /** Values below 0 and above 1: not in any bin. */
  below: number;
  above: number;
}

class Stats {
  count = 0;
  sum = 0;
  min = Number.POSITIVE_INFINITY;
  max = Number.NEGATIVE_INFINITY;
  add(v: number): void {
    this.count++;
    this.sum += v;
    if (v < this.min) this.min = v;
    if (v > this.max) this.max = v;
  }
  summary(bins: number[]): HistogramSummary {
    const any = this.count > 0;
    return {
      count: this.count,
      min: any ? this.min : null,
      max: any ? this.max : null,
      mean: any ? this.sum / this.count : null,
      bins: [...bins],
    };
  }
}

/** Lengths (characters, words) in log-scale bins with round edges. */
export class LengthHistogram {
  private readonly stats = new Stats();
  private readonly bins = new Array<number>(LENGTH_BINS).fill(0);
  add(length: number): void {
    this.stats.add(length);
    this.bins[lengthBin(length)]!++;
  }
  summary(): HistogramSummary {
    return this.stats.summary(this.bins);
  }
}

export const SCORE_BINS = 20;

/** Bin `i` of a [0, 1] score covers [i/20, (i+1)/20); 1 itself falls in the last bin. */
export function scoreBinRange(i: number): [number, number] {
  return [i / SCORE_BINS, (i + 1) / SCORE_BINS];
}

/** Scores expected in [0, 1] (difficulty), in equal-width bins. */
export class ScoreHistogram {
  private readonly stats = new Stats();
  private readonly bins = new Array<number>(SCORE_BINS).fill(0);
  private below = 0;
  private above = 0;
  add(score: number): void {
    this.stats.add(score);
    if (score < 0) this.below++;
    else if (score > 1) this.above++;
    else this.bins[Math.min(SCORE_BINS - 1, Math.floor(score * SCORE_BINS))]!++;
  }
  summary(): ScoreHistogramSummary {
    return { ...this.stats.summary(this.bins), below: this.below, above: this.above };
  }
}
