/**
 * MinHash recall at Data-Juicer's banding: planted pairs of known Jaccard similarity run through
 * near_dedup as `winnow run` runs a recipe's `document_minhash_deduplicator` (Data-Juicer's
 * defaults: 256 permutations, jaccard_threshold 0.7, so 25 bands × 10 rows, unverified), and the
 * share of pairs caught per similarity band printed next to the analytic S-curve
 * 1 − (1 − s^rows)^bands averaged over the same pairs: what Data-Juicer's banding catches. The
 * banding Winnow used before (16 bands × 16 rows, verified at the threshold) runs beside it.
 *
 * A pair is two documents of distinct made-up words (one-word shingles), the second with k of the
 * first's N words replaced by fresh ones, so its Jaccard similarity is exactly (N − k) / (N + k).
 */

import { parseCommand } from '../src/cli/command-spec.ts';
import { formatTable } from '../src/cli/table.ts';
import { Rng } from '../src/core/rng.ts';
import type { Task } from '../src/core/task.ts';
import { type Banding, bandingCatchProbability, optimalBanding } from '../src/operators/task/lsh-banding.ts';
import { nearDedupOp } from '../src/operators/task/near-dedup.ts';
import { MINHASH_BENCH_SPEC } from './bench-specs.ts';

export const SIMILARITY_BANDS: ReadonlyArray<readonly [number, number]> = [
  [0.7, 0.75],
  [0.75, 0.8],
  [0.8, 0.85],
];

export interface BandRecall {
  /** The Jaccard band, lower bound inclusive. */
  from: number;
  to: number;
  pairs: number;
  /** Pairs whose second document near_dedup dropped, with the recipe's banding. */
  caught: number;
  recall: number;
  /** Data-Juicer's banding on paper: the S-curve averaged over these pairs' similarities. */
  expected: number;
  /** The banding Winnow used before (16 × 16, verified at the threshold). */
  previousRecall: number;
}

export interface MinhashBenchResult {
  permutations: number;
  threshold: number;
  banding: Banding;
  bands: BandRecall[];
  /** First documents of a pair that were dropped (documents of different pairs share no word). */
  falseDrops: number;
}

interface Pair {
  a: string;
  b: string;
  jaccard: number;
}

/** Planted pairs, `perBand` in each similarity band, every pair on its own vocabulary. */
function plantPairs(perBand: number, rng: Rng): Pair[][] {
  let next = 0;
  const freshWord = () => {
    let n = next++;
    let w = 'q';
    do {
      w += String.fromCharCode(97 + (n % 26));
      n = Math.floor(n / 26);
    } while (n > 0);
    return `${w}${String.fromCharCode(97 + rng.int(26))}`;
  };
  return SIMILARITY_BANDS.map(([from, to]) => {
    const pairs: Pair[] = [];
    while (pairs.length < perBand) {
      const n = 150 + rng.int(151);
      const target = from + rng.float() * (to - from);
      const k = Math.round((n * (1 - target)) / (1 + target));
      const jaccard = (n - k) / (n + k);
      if (jaccard < from || jaccard >= to) continue;
      const words = Array.from({ length: n }, freshWord);
      const changed = [...words];
      for (let i = 0; i < k; i++) changed[i] = freshWord();
      pairs.push({ a: words.join(' '), b: changed.join(' '), jaccard });
    }
    return pairs;
  });
}

/** How many of the pairs' second documents near_dedup drops (and how many first ones it drops). */
async function caughtBy(
  params: Record<string, unknown>,
  pairs: Pair[],
): Promise<{ caught: number; falseDrops: number }> {
  const op = nearDedupOp.create(nearDedupOp.params.parse(params));
  const tasks: Task[] = pairs.flatMap((p, i) => [
    { id: `a${i}`, taskset: 'bench', prompt: p.a, features: {}, meta: {} },
    { id: `b${i}`, taskset: 'bench', prompt: p.b, features: {}, meta: {} },
  ]);
  const ctx = { rng: new Rng(1), seed: 1, runId: 'bench-minhash', warn: () => {} };
  const r = await op.process(tasks, ctx);
  const dropped = r.dropped.map((d) => d.row.id);
  return {
    caught: dropped.filter((id) => id.startsWith('b')).length,
    falseDrops: dropped.filter((id) => id.startsWith('a')).length,
  };
}

export async function minhashBandingRecall(
  o: { perBand?: number; seed?: number; permutations?: number; threshold?: number } = {},
): Promise<MinhashBenchResult> {
  const permutations = o.permutations ?? 256;
  const threshold = o.threshold ?? 0.7;
  const banding = optimalBanding(threshold, permutations);
  const shared = { tokenizer: 'word', ngram: 1, permutations, threshold, seed: 1 };
  const recipe = { ...shared, bands: banding.bands, rows: banding.rows, verify: false };
  const previous = { ...shared, bands: 16, verify: true };
  const groups = plantPairs(o.perBand ?? 2000, new Rng(`bench:minhash:${o.seed ?? 1}`));
  const bands: BandRecall[] = [];
  let falseDrops = 0;
  for (const [i, pairs] of groups.entries()) {
    const now = await caughtBy(recipe, pairs);
    const before = await caughtBy(previous, pairs);
    falseDrops += now.falseDrops + before.falseDrops;
    const expected =
      pairs.reduce((s, p) => s + bandingCatchProbability(p.jaccard, banding), 0) / pairs.length;
    bands.push({
      from: SIMILARITY_BANDS[i]![0],
      to: SIMILARITY_BANDS[i]![1],
      pairs: pairs.length,
      caught: now.caught,
      recall: now.caught / pairs.length,
      expected,
      previousRecall: before.caught / pairs.length,
    });
  }
  return { permutations, threshold, banding, bands, falseDrops };
}

export async function minhashBenchMain(argv: string[]): Promise<number> {
  const parsed = parseCommand(MINHASH_BENCH_SPEC, argv);
  if (!parsed) return 0;
  const { values } = parsed;
  const r = await minhashBandingRecall({
    perBand: values.pairs,
    seed: values.seed,
    permutations: values.permutations,
    threshold: values.threshold,
  });
  if (values.json) {
    process.stdout.write(`${JSON.stringify(r, null, 2)}\n`);
    return 0;
  }
  const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
  const rows = r.bands.map((b) => [
    `${b.from.toFixed(2)}–${b.to.toFixed(2)}`,
    b.pairs,
    `${b.caught}/${b.pairs}`,
    pct(b.recall),
    pct(b.expected),
    `${((b.recall - b.expected) * 100).toFixed(1)} pts`,
    pct(b.previousRecall),
  ]);
  process.stdout.write(
    `${r.permutations} permutations, jaccard_threshold ${r.threshold}: ${r.banding.bands} bands × ${r.banding.rows} rows (Data-Juicer's optimiser)\n` +
      `${formatTable(['Jaccard', 'pairs', 'caught', 'recall', "Data-Juicer's S-curve", 'difference', 'before (16×16, verified)'], rows)}\n` +
      `first documents dropped (should be 0): ${r.falseDrops}\n`,
  );
  return 0;
}
