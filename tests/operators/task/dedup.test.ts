import { describe, expect, it } from 'vitest';
import { DEFAULT_DEDUP_KEY_OPTIONS, dedupKey } from '../../../src/operators/task/dedup-key.ts';
import { exactDedupOp } from '../../../src/operators/task/exact-dedup.ts';
import { LshIndex } from '../../../src/operators/task/lsh-index.ts';
import { MinHasher, signatureSimilarity } from '../../../src/operators/task/minhash.ts';
import { nearDedupOp } from '../../../src/operators/task/near-dedup.ts';
import { gsm8k, ids, reasons, run, task } from './helpers.ts';

const janet = gsm8k()[0]!.question;

describe('dedupKey', () => {
  it('makes case, spacing and punctuation variants collide', () => {
    expect(dedupKey('What is 2+2?')).toBe('what is 2+2');
    expect(dedupKey('  what is 2 + 2 ? ')).toBe('what is 2+2');
    expect(dedupKey('ＷＨＡＴ is 2＋2!')).toBe('what is 2+2');
  });
  it('keeps numbers apart: decimal points and thousands commas between digits stay', () => {
    expect(dedupKey('What is 3.5 + 1?')).toBe('what is 3.5+1');
    expect(dedupKey('What is 35 + 1?')).toBe('what is 35+1');
    expect(dedupKey('Pay $1,000.50, now.')).toBe('pay$1,000.50 now');
  });
  it('options switch each step off', () => {
    const raw = { unicode: 'none', lowercase: false, stripPunctuation: false, whitespace: 'keep' } as const;
    expect(dedupKey(' A  b? ', raw)).toBe(' A  b? ');
    expect(dedupKey(' A  b? ', { ...DEFAULT_DEDUP_KEY_OPTIONS, whitespace: 'remove' })).toBe('ab');
  });
});

describe('exact_dedup', () => {
  it('keeps the first occurrence and names it in the reason, across batches', async () => {
    const r = await run(
      exactDedupOp,
      {},
      [task('a', 'What is 2+2?'), task('b', '  what is 2 + 2 ? '), task('c', 'What is 2+3?')],
      [task('d', 'WHAT IS 2+2!'), task('e', 'What is 3.5 + 1?'), task('f', 'What is 35 + 1?')],
    );
    expect(ids(r.rows)).toEqual(['a', 'c', 'e', 'f']);
    expect(reasons(r)).toEqual([
      ['b', 'duplicate of a'],
      ['d', 'duplicate of a'],
    ]);
    expect(r.metrics).toEqual({ duplicate_ids: 0, duplicate_texts: 2 });
  });
  it('drops repeated ids even when the text differs', async () => {
    const r = await run(exactDedupOp, {}, [task('a', 'one'), task('a', 'two')], [task('a', 'three')]);
    expect(reasons(r)).toEqual([
      ['a', 'duplicate id a'],
      ['a', 'duplicate id a'],
    ]);
    const noIds = await run(exactDedupOp, { checkIds: false }, [task('a', 'one'), task('a', 'two')]);
    expect(noIds.rows).toHaveLength(2);
  });
  it('keeps GSM8K problems that differ in one number', async () => {
    const r = await run(exactDedupOp, {}, [task('g0', janet), task('g0b', janet.replace('16', '17'))]);
    expect(ids(r.rows)).toEqual(['g0', 'g0b']);
  });
  it('field: all compares prompt and answer together', async () => {
    const rows = [
      task('a', 'Q', { answer: '1' }),
      task('b', 'Q', { answer: '2' }),
      task('c', 'q', { answer: '1' }),
    ];
    const r = await run(exactDedupOp, { field: 'all' }, rows);
    expect(reasons(r)).toEqual([['c', 'duplicate of a']]);
  });
});

describe('MinHash and LSH', () => {
  const opts = { tokenizer: 'char', ngram: 5, permutations: 128, seed: 1, lowercase: true } as const;
  it('identical text gives identical signatures; case and spacing do not matter', () => {
    const h = new MinHasher(opts);
    const a = new Uint32Array(128);
    const b = new Uint32Array(128);
    h.signature('The cat  sat on the mat', a);
    h.signature('the cat sat\non the mat ', b);
    expect(signatureSimilarity(a, 0, b, 0, 128)).toBe(1);
  });
  it('rolling char shingles equal shingles hashed one by one', () => {
    const h = new MinHasher(opts);
    const text = 'abcdeabcdeX';
    const rolled = [...h.shingleHashes(text)];
    const single = [];
    for (let i = 0; i + 5 <= text.length; i++) single.push(h.shingleHashes(text.slice(i, i + 5))[0]);
    expect(rolled).toEqual(single);
    expect(rolled[0]).toBe(rolled[5]);
  });
  it('the estimate tracks true Jaccard similarity within a few points', () => {
    const h = new MinHasher({ ...opts, tokenizer: 'word', ngram: 1, permutations: 256 });
    const words = Array.from({ length: 200 }, (_, i) => `w${i}`);
    const a = words.slice(0, 150).join(' ');
    const b = words.slice(50, 200).join(' ');
    const sa = new Uint32Array(256);
    const sb = new Uint32Array(256);
    h.signature(a, sa);
    h.signature(b, sb);
    // True Jaccard: 100 shared of 200 → 0.5; the estimate's sd is √(.25/256) ≈ 0.031.
    expect(Math.abs(signatureSimilarity(sa, 0, sb, 0, 256) - 0.5)).toBeLessThan(0.1);
  });
  it('the index reports each stored candidate once per query', () => {
    const index = new LshIndex(4, 2);
    const sig = new Uint32Array([1, 2, 3, 4, 5, 6, 7, 8]);
    const other = new Uint32Array([1, 2, 9, 9, 9, 9, 7, 8]);
    expect(index.insert(index.bandKeys(sig, 0))).toBe(0);
    expect(index.insert(index.bandKeys(other, 0))).toBe(1);
    const seen: number[] = [];
    index.candidates(index.bandKeys(sig, 0), (d) => seen.push(d));
    expect(seen.sort()).toEqual([0, 1]);
    const none: number[] = [];
    index.candidates(index.bandKeys(new Uint32Array(8).fill(42), 0), (d) => none.push(d));
    expect(none).toEqual([]);
  });
});

describe('near_dedup', () => {
  it('drops reworded copies with small edits and says how similar they are (golden)', async () => {
    const rows = [
      task('g0', janet),
      task('oneWord', janet.replace('lay', 'produce')),
      task(
        'reworded',
        janet.replace('Janet’s ducks lay 16 eggs per day.', "Each day, Janet's ducks lay 16 eggs."),
      ),
      task(
        'threeWords',
        janet.replace('lay', 'produce').replace('breakfast', 'lunch').replace('friends', 'family'),
      ),
      task('exact', `  ${janet.toUpperCase()} `),
    ];
    const r = await run(nearDedupOp, {}, rows);
    // True char-5 Jaccard to g0: oneWord 0.928, reworded 0.864, threeWords 0.783 (below 0.8: kept).
    expect(ids(r.rows)).toEqual(['g0', 'threeWords']);
    expect(reasons(r)).toEqual([
      ['oneWord', 'near-duplicate of g0 (similarity 0.92)'],
      ['reworded', 'near-duplicate of g0 (similarity 0.89)'],
      ['exact', 'near-duplicate of g0 (similarity 1.00)'],
    ]);
  });
  it('merges a GSM8K problem with its one-number variant at the default threshold (documented)', async () => {
    const r = await run(nearDedupOp, {}, [task('g0', janet)], [task('g0b', janet.replace('16', '17'))]);
    expect(reasons(r)).toEqual([['g0b', 'near-duplicate of g0 (similarity 0.95)']]);
  });
  it('merges no two distinct problems of the GSM8K test split at the default threshold', async () => {
    const rows = gsm8k().map((g, i) => task(`g${i}`, g.question));
    const r = await run(nearDedupOp, {}, rows.slice(0, 700), rows.slice(700));
    expect(r.dropped).toEqual([]);
    expect(r.rows).toHaveLength(1319);
    // At 0.5 the only merges are problems that reuse another's sentences.
    const loose = await run(nearDedupOp, { threshold: 0.5 }, rows);
    expect(reasons(loose)).toEqual([
      ['g558', 'near-duplicate of g418 (similarity 0.66)'],
      ['g761', 'near-duplicate of g488 (similarity 0.63)'],
      ['g863', 'near-duplicate of g33 (similarity 0.50)'],
    ]);
  });
  it('word tokenizer and parameter checks', async () => {
    const r = await run(nearDedupOp, { tokenizer: 'word' }, [
      task('a', janet),
      task('b', janet.replace('lay', 'produce')),
    ]);
    expect(reasons(r)).toEqual([['b', 'near-duplicate of a (similarity 0.85)']]);
    expect(nearDedupOp.params.safeParse({ permutations: 100, bands: 16 }).success).toBe(false);
    expect(nearDedupOp.params.safeParse({ threshold: 0 }).success).toBe(false);
  });
  it('is deterministic for a seed and differs little across seeds', async () => {
    const rows = [task('a', janet), task('b', janet.replace('16', '17'))];
    const s1 = await run(nearDedupOp, { seed: 1 }, rows);
    const s1again = await run(nearDedupOp, { seed: 1 }, rows);
    const s2 = await run(nearDedupOp, { seed: 2 }, rows);
    expect(reasons(s1again)).toEqual(reasons(s1));
    expect(ids(s2.rows)).toEqual(['a']);
  });
});
