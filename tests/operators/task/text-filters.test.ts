import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/core/errors.ts';
import { alnumRatio, alnumRatioFilterOp } from '../../../src/operators/task/alnum-ratio-filter.ts';
import {
  charRepetitionFilterOp,
  charRepetitionRatio,
} from '../../../src/operators/task/char-repetition-filter.ts';
import {
  FlaggedWordMatcher,
  flaggedWordsFilterOp,
} from '../../../src/operators/task/flagged-words-filter.ts';
import { lengthFilterOp } from '../../../src/operators/task/length-filter.ts';
import {
  specialCharRatio,
  specialCharRatioFilterOp,
} from '../../../src/operators/task/special-char-ratio-filter.ts';
import { countChars, countWords } from '../../../src/operators/task/text-stats.ts';
import {
  wordRepetitionFilterOp,
  wordRepetitionRatio,
} from '../../../src/operators/task/word-repetition-filter.ts';
import { tempDir } from '../../helpers/tmp.ts';
import { ids, reasons, run, task } from './helpers.ts';

describe('length_filter', () => {
  it('counts code points and whitespace-separated words', () => {
    expect(countChars('😀 é')).toBe(3);
    expect(countWords('  a\tb\n c\u00a0d ')).toBe(4);
  });
  it('drops by any of the four limits with the measured value in the reason', async () => {
    const rows = [
      task('short', 'hi'),
      task('long', 'this text is way too long for it'),
      task('oneword', 'abcdefgh'),
      task('manywords', 'a b c d e'),
      task('ok', 'hello world'),
      task('emoji', '😀😀😀😀😀'),
    ];
    const r = await run(lengthFilterOp, { minChars: 5, maxChars: 20, minWords: 2, maxWords: 4 }, rows);
    expect(ids(r.rows)).toEqual(['ok']);
    expect(reasons(r)).toEqual([
      ['short', 'too short: 2 chars < minChars 5'],
      ['long', 'too long: 32 chars > maxChars 20'],
      ['oneword', 'too few words: 1 < minWords 2'],
      ['manywords', 'too many words: 5 > maxWords 4'],
      ['emoji', 'too few words: 1 < minWords 2'],
    ]);
  });
  it('judges the answer when asked, and rejects min > max', async () => {
    const r = await run(lengthFilterOp, { field: 'answer', minChars: 1 }, [
      task('a', 'q', { answer: '' }),
      task('b', 'q'),
    ]);
    expect(reasons(r)).toEqual([
      ['a', 'too short: 0 chars < minChars 1'],
      ['b', 'too short: 0 chars < minChars 1'],
    ]);
    expect(lengthFilterOp.params.safeParse({ minWords: 5, maxWords: 2 }).success).toBe(false);
  });
});

describe('special_char_ratio_filter and alnum_ratio_filter', () => {
  it('compute shares over code points', () => {
    expect(specialCharRatio('2+2=4?')).toBe(0.5);
    expect(specialCharRatio('What is 2+2?')).toBeCloseTo(2 / 12, 12);
    expect(specialCharRatio('')).toBe(0);
    expect(alnumRatio('---!!!abc')).toBeCloseTo(1 / 3, 12);
    expect(alnumRatio('naïve 日本')).toBe(7 / 8);
  });
  it('drop above maxRatio / below minRatio', async () => {
    const rows = [task('eq', '2+2=4?'), task('q', 'What is 2+2?'), task('bang', '...!!a'), task('empty', '')];
    const special = await run(specialCharRatioFilterOp, {}, rows);
    expect(reasons(special)).toEqual([
      ['eq', 'special-char ratio 0.500 > maxRatio 0.25'],
      ['bang', 'special-char ratio 0.833 > maxRatio 0.25'],
    ]);
    const alnum = await run(alnumRatioFilterOp, {}, rows);
    expect(reasons(alnum)).toEqual([
      ['bang', 'alnum ratio 0.167 < minRatio 0.25'],
      ['empty', 'alnum ratio 0.000 < minRatio 0.25'],
    ]);
  });
});

describe('char_repetition_filter', () => {
  it('sums the top ⌊√D⌋ repeated n-gram counts over all n-grams', () => {
    // 3-grams abc×3, bca×2, cab×2: D = 3, k = 1, ratio = 3/7.
    expect(charRepetitionRatio('abcabcabc', 3)).toBeCloseTo(3 / 7, 12);
    expect(charRepetitionRatio('abcdefg', 3)).toBe(0);
    expect(charRepetitionRatio('ab', 3)).toBe(0);
    expect(charRepetitionRatio('a'.repeat(20), 10)).toBe(1);
  });
  it('drops highly repetitive text', async () => {
    const r = await run(charRepetitionFilterOp, {}, [
      task('rep', 'a'.repeat(20)),
      task('ok', 'The quick brown fox jumps.'),
    ]);
    expect(reasons(r)).toEqual([['rep', 'char 10-gram repetition ratio 1.000 > maxRatio 0.5']]);
  });
});

describe('word_repetition_filter', () => {
  it('counts repeated word n-grams, case and end punctuation ignored', () => {
    expect(wordRepetitionRatio('the cat sat. The cat sat!', 3)).toBe(0.5);
    expect(wordRepetitionRatio('one two three', 3)).toBe(0);
    expect(wordRepetitionRatio('one two', 3)).toBe(0);
    expect(wordRepetitionRatio('buy buy buy buy', 1)).toBe(1);
  });
  it('drops above maxRatio', async () => {
    const r = await run(wordRepetitionFilterOp, { n: 3, maxRatio: 0.4 }, [
      task('rep', 'the cat sat. The cat sat!'),
      task('ok', 'the cat sat on the mat'),
    ]);
    expect(reasons(r)).toEqual([['rep', 'word 3-gram repetition ratio 0.500 > maxRatio 0.4']]);
  });
});

describe('flagged_words_filter', () => {
  it('matches whole words and phrases, case-insensitively', () => {
    const m = new FlaggedWordMatcher(['Lorem', 'click here', 'e-mail']);
    expect(m.matches('LOREM dolor; click\n here! Loremipsum e-mail e-mails')).toEqual([
      'lorem',
      'click here',
      'e-mail',
    ]);
  });
  it('with the default list, any occurrence drops the task', async () => {
    const rows = [
      task('lorem', 'Lorem ipsum dolor'),
      task('spam', 'Click   HERE to win'),
      task('glued', 'Loremipsum unsubscribed'),
      task('clean', 'How many apples?'),
    ];
    const r = await run(flaggedWordsFilterOp, {}, rows);
    expect(ids(r.rows)).toEqual(['glued', 'clean']);
    expect(reasons(r)).toEqual([
      ['lorem', 'flagged words: 2 > maxCount 0 (lorem, ipsum)'],
      ['spam', 'flagged words: 1 > maxCount 0 (click here)'],
    ]);
  });
  it('maxRatio counts flagged occurrences per word', async () => {
    const text = `${'word '.repeat(19)}lorem`;
    const strict = await run(flaggedWordsFilterOp, { maxRatio: 0.045 }, [task('a', text)]);
    expect(reasons(strict)).toEqual([['a', 'flagged-word ratio 0.050 > maxRatio 0.045 (lorem)']]);
    const loose = await run(flaggedWordsFilterOp, { maxRatio: 0.1 }, [task('a', text)]);
    expect(loose.rows).toHaveLength(1);
  });
  it('reads a newline list from a file; a missing file is a config error', async () => {
    const file = join(tempDir(), 'words.txt');
    writeFileSync(file, '# my list\nfoo\n\nbar baz\n');
    const r = await run(flaggedWordsFilterOp, { words: [], file }, [
      task('a', 'Foo!'),
      task('b', 'bar   baz'),
      task('c', 'lorem'),
    ]);
    expect(ids(r.rows)).toEqual(['c']);
    const def = flaggedWordsFilterOp;
    expect(() => def.create(def.params.parse({ file: join(tempDir(), 'nope.txt') }))).toThrow(ConfigError);
  });
});
