import { describe, expect, it } from 'vitest';
import { minhashBandingRecall } from '../../../bench/minhash-banding.ts';
import { bandingCatchProbability, optimalBanding } from '../../../src/operators/task/lsh-banding.ts';
import { nearDedupOp } from '../../../src/operators/task/near-dedup.ts';
import { ids, run, task } from './helpers.ts';

/**
 * (bands, rows) minimising 0.5 × the false-positive area plus 0.5 × the false-negative area over
 * bands × rows ≤ permutations, computed independently with scipy's adaptive quadrature (the
 * integrals Data-Juicer's document_minhash_deduplicator minimises).
 */
const REFERENCE: Record<string, [number, number]> = {
  '64/0.5': [14, 4],
  '64/0.7': [8, 8],
  '64/0.9': [3, 21],
  '128/0.5': [25, 5],
  '128/0.7': [14, 9],
  '128/0.8': [9, 13],
  '128/0.95': [3, 42],
  '256/0.6': [32, 8],
  '256/0.7': [25, 10],
  '256/0.75': [21, 12],
  '256/0.8': [17, 15],
  '256/0.85': [13, 19],
  '256/0.9': [9, 28],
};

describe("Data-Juicer's MinHash banding", () => {
  it("gives Data-Juicer's defaults (256 permutations, jaccard 0.7) 25 bands × 10 rows", () => {
    expect(optimalBanding(0.7, 256)).toEqual({ bands: 25, rows: 10 });
  });

  it('picks the same banding as an adaptive quadrature for other thresholds and permutation counts', () => {
    for (const [key, [bands, rows]] of Object.entries(REFERENCE)) {
      const [perms, threshold] = key.split('/').map(Number) as [number, number];
      expect(optimalBanding(threshold, perms), key).toEqual({ bands, rows });
    }
  });

  it('has the S-curve 1 − (1 − s^rows)^bands', () => {
    const b = { bands: 25, rows: 10 };
    expect(bandingCatchProbability(0.7, b)).toBeCloseTo(1 - (1 - 0.7 ** 10) ** 25, 12);
    expect(bandingCatchProbability(0.7, b)).toBeCloseTo(0.5115, 4);
    expect(bandingCatchProbability(1, b)).toBe(1);
    expect(bandingCatchProbability(0, b)).toBe(0);
  });
});

describe('near_dedup rows and verify', () => {
  // Two texts of 20 distinct words sharing 10: Jaccard 10/30 = 0.33.
  const words = (from: number, n: number) => Array.from({ length: n }, (_, i) => `w${from + i}x`).join(' ');
  const rows = [task('a', words(0, 20)), task('b', words(10, 20))];
  // 32 bands of 2 rows: a pair at 0.33 shares a band with probability 1 − (1 − 0.11)^32 ≈ 0.98.
  const loose = { tokenizer: 'word', ngram: 1, permutations: 64, bands: 32, rows: 2, threshold: 0.9 };

  it('verify: true drops a candidate only at the threshold; verify: false drops on a shared band', async () => {
    expect(ids((await run(nearDedupOp, { ...loose, verify: true }, rows)).rows)).toEqual(['a', 'b']);
    const r = await run(nearDedupOp, { ...loose, verify: false }, rows);
    expect(ids(r.rows)).toEqual(['a']);
    expect(r.dropped[0]!.reason).toMatch(/^near-duplicate of a \(similarity 0\.\d\d\)$/);
  });

  it('unverified, texts that share no band are kept', async () => {
    const far = [task('a', words(0, 20)), task('b', words(100, 20))];
    expect(ids((await run(nearDedupOp, { ...loose, verify: false }, far)).rows)).toEqual(['a', 'b']);
  });

  it("drops Chinese and Japanese near-duplicates at Data-Juicer's banding (character shingles)", async () => {
    const dj = {
      tokenizer: 'char',
      ngram: 2,
      permutations: 256,
      bands: 25,
      rows: 10,
      threshold: 0.7,
      verify: false,
    };
    const rows = [
      task('zh', '今天早上下了一场小雨，空气变得非常清新，我们一起去公园散步。'),
      // One character changed: most bigrams shared, Jaccard about 0.87: caught with probability > 0.99.
      task('zh-near', '今天早上下了一场大雨，空气变得非常清新，我们一起去公园散步。'),
      task('ja', '今朝は少し早く起きて、近くの公園を散歩しました。'),
      task('ja-near', '今朝は少し早く起きて、近くの公園を散歩しました！'),
      task('other', '図書館は学生にとって大切な場所です。'),
    ];
    const r = await run(nearDedupOp, dj, rows);
    expect(ids(r.rows)).toEqual(['zh', 'ja', 'other']);
    expect(r.dropped.map((d) => d.reason.replace(/ \(similarity .*\)$/, ''))).toEqual([
      'near-duplicate of zh',
      'near-duplicate of ja',
    ]);
  });

  it('takes bands × rows below the permutations, and refuses more', () => {
    expect(nearDedupOp.params.safeParse({ permutations: 256, bands: 25, rows: 10 }).success).toBe(true);
    const over = nearDedupOp.params.safeParse({ permutations: 256, bands: 26, rows: 10 });
    expect(over.success).toBe(false);
    expect(over.error?.issues[0]?.message).toBe('bands × rows must not exceed permutations');
    expect(nearDedupOp.params.safeParse({ permutations: 256, bands: 25 }).success).toBe(false);
  });
});

describe('bench minhash', () => {
  it("catches planted pairs within 5 points of Data-Juicer's S-curve in every band 0.70–0.85", async () => {
    const r = await minhashBandingRecall({ perBand: 400, seed: 3 });
    expect(r.banding).toEqual({ bands: 25, rows: 10 });
    expect(r.falseDrops).toBe(0);
    expect(r.bands.map((b) => [b.from, b.to, b.pairs])).toEqual([
      [0.7, 0.75, 400],
      [0.75, 0.8, 400],
      [0.8, 0.85, 400],
    ]);
    for (const b of r.bands)
      expect(Math.abs(b.recall - b.expected), `${b.from}–${b.to}`).toBeLessThanOrEqual(0.05);
  }, 120_000);
});
