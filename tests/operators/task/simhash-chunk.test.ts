import { describe, expect, it } from 'vitest';
import { chunkText, chunkTextOp } from '../../../src/operators/task/chunk-text.ts';
import { hammingDistance, shingles, simhash } from '../../../src/operators/task/simhash.ts';
import { simhashDedupOp } from '../../../src/operators/task/simhash-dedup.ts';
import { ids, reasons, run, task } from './helpers.ts';

const word = { tokenizer: 'word', window: 2, lowercase: true } as const;

describe('simhash', () => {
  it('shingles are CJK-aware word windows', () => {
    expect(shingles('The cat sat', word)).toEqual(['the cat', 'cat sat']);
    expect(shingles('我喜欢吃苹果', word)).toEqual(['我 喜欢', '喜欢 吃', '吃 苹果']);
    expect(shingles('hi', word)).toEqual(['hi']);
    expect(shingles('', word)).toEqual([]);
  });
  it('identical texts hash alike; case is ignored; unrelated texts are far apart', () => {
    const a = simhash('The quick brown fox jumps over the lazy dog', word);
    expect(hammingDistance(a, simhash('the QUICK brown fox jumps over the lazy dog', word))).toBe(0);
    expect(
      hammingDistance(a, simhash('Completely different words about stock markets today', word)),
    ).toBeGreaterThan(10);
  });
});

describe("simhash with Data-Juicer's space tokens and short texts", () => {
  const space = { tokenizer: 'space', window: 3, lowercase: true, shortText: 'none' } as const;
  it('space splits on U+0020 only (not newlines or tabs, not inside CJK), empties dropped', () => {
    expect(shingles('a  b c\nd e', { ...space, window: 2 })).toEqual(['a b', 'b c\nd', 'c\nd e']);
    expect(shingles('我喜欢吃苹果 真的', { ...space, window: 1 })).toEqual(['我喜欢吃苹果', '真的']);
    expect(shingles('今日は いい 天気', { ...space, window: 1 })).toEqual(['今日は', 'いい', '天気']);
  });
  it('a text of fewer tokens than the window has no shingle and hashes to 0 (shortText: none)', () => {
    expect(shingles('我喜欢吃苹果', space)).toEqual([]);
    expect(simhash('我喜欢吃苹果', space)).toEqual({ hi: 0, lo: 0 });
    expect(simhash('今日はいい天気です', space)).toEqual({ hi: 0, lo: 0 });
    expect(simhash('two words', space)).toEqual({ hi: 0, lo: 0 });
    // the default keeps a short text as one shingle
    expect(shingles('two words', { ...space, shortText: 'whole' })).toEqual(['two words']);
    expect(simhash('three words here', space)).not.toEqual({ hi: 0, lo: 0 });
  });
  it('simhash_dedup drops every later short text as a duplicate of the first (Data-Juicer)', async () => {
    const out = await run(simhashDedupOp, { tokenizer: 'space', window: 3, shortText: 'none' }, [
      task('zh', '今天天气很好，我们去公园。'),
      task('ja', '今日はいい天気なので公園へ行きます。'),
      task('en', 'The weather is fine today, so we walk to the park.'),
      task('zh2', '我的朋友是一名小学老师。'),
    ]);
    expect(ids(out.rows)).toEqual(['zh', 'en']);
    expect(reasons(out)).toEqual([
      ['ja', 'near-duplicate of zh (simhash distance 0 <= hammingDistance 4)'],
      ['zh2', 'near-duplicate of zh (simhash distance 0 <= hammingDistance 4)'],
    ]);
  });
});

describe('simhash_dedup', () => {
  it('drops exact and near copies in en/zh/ja, naming distance and threshold', async () => {
    const en =
      'Natalia sold clips to 48 of her friends in April, and then she sold half as many clips in May.';
    const zh = '小明有五个苹果，他给了小红两个苹果，然后又买了三个苹果，请问他现在有几个苹果？';
    const ja = '太郎は りんごを 五つ 持っています。花子に 二つ あげました。太郎は 今 いくつ 持っていますか。';
    const rows = [
      task('en', en),
      task('en-copy', en.toUpperCase()),
      task('zh', zh),
      task('zh-copy', zh.replaceAll('，', ', ')), // punctuation is not a word
      task('ja', ja),
      task('ja-copy', ja),
      task('other', 'A train leaves the station at noon travelling sixty miles per hour towards the coast.'),
    ];
    const r = await run(simhashDedupOp, {}, rows);
    expect(ids(r.rows)).toEqual(['en', 'zh', 'ja', 'other']);
    expect(reasons(r)).toEqual([
      ['en-copy', 'near-duplicate of en (simhash distance 0 <= hammingDistance 4)'],
      ['zh-copy', 'near-duplicate of zh (simhash distance 0 <= hammingDistance 4)'],
      ['ja-copy', 'near-duplicate of ja (simhash distance 0 <= hammingDistance 4)'],
    ]);
  });
  it('a one-word edit of a long text is near; an unrelated text is far; found across batches', async () => {
    const base = Array.from({ length: 400 }, (_, i) => `word${i}`).join(' ');
    const edited = base.replace('word200', 'changed');
    const other = Array.from({ length: 400 }, (_, i) => `term${i * 7}`).join(' ');
    const o = { ...word, window: 6 };
    const h = hammingDistance(simhash(base, o), simhash(edited, o));
    expect(h).toBeGreaterThan(0);
    expect(h).toBeLessThanOrEqual(12);
    expect(hammingDistance(simhash(base, o), simhash(other, o))).toBeGreaterThan(20);
    const r = await run(
      simhashDedupOp,
      { hammingDistance: 12, blocks: 16 },
      [task('a', base)],
      [task('b', edited), task('c', other)],
    );
    expect(ids(r.rows)).toEqual(['a', 'c']);
    expect(reasons(r)).toEqual([['b', `near-duplicate of a (simhash distance ${h} <= hammingDistance 12)`]]);
  });
  it('needs more blocks than differing bits', () => {
    expect(simhashDedupOp.params.safeParse({ hammingDistance: 6, blocks: 6 }).success).toBe(false);
  });
});

describe('chunk_text', () => {
  it('splits at paragraphs, then sentences, then by length with overlap', () => {
    expect(chunkText('First para.\n\nSecond para.', 50, /\n\s*\n/u, 0)).toEqual([
      'First para.',
      'Second para.',
    ]);
    expect(chunkText('One two. Three four. Five six.', 20, /\n\s*\n/u, 0)).toEqual([
      'One two. Three four.',
      'Five six.',
    ]);
    expect(chunkText('我喜欢苹果。你喜欢香蕉。他喜欢葡萄。', 12, /\n\s*\n/u, 0)).toEqual([
      '我喜欢苹果。你喜欢香蕉。',
      '他喜欢葡萄。',
    ]);
    expect(chunkText('あいうえおかきくけこ', 4, /\n\s*\n/u, 1)).toEqual(['あいうえ', 'えおかき', 'きくけこ']);
  });
  it('emits one row per chunk with ids and meta naming the source', async () => {
    const r = await run(chunkTextOp, { maxLen: 12 }, [
      task('zh', '我喜欢苹果。你喜欢香蕉。他喜欢葡萄。'),
      task('short', 'Short.'),
    ]);
    expect(r.rows.map((t) => [t.id, t.prompt, t.meta['chunk']])).toEqual([
      ['zh#0', '我喜欢苹果。你喜欢香蕉。', { source: 'zh', index: 0, of: 2 }],
      ['zh#1', '他喜欢葡萄。', { source: 'zh', index: 1, of: 2 }],
      ['short', 'Short.', undefined],
    ]);
    expect(r.metrics).toEqual({ variants_emitted: 1 });
  });
});
