import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cjkText } from '../../../bench/ingest/cjk-file.ts';
import { Rng } from '../../../src/core/rng.ts';
import { measureLanded, textLength } from '../../../src/operators/task/landed-measures.ts';
import { countWords, isSpaceCode } from '../../../src/operators/task/text-stats.ts';
import { countWordUnits, countWordUnitsRef, isJsSpace } from '../../../src/operators/task/text-units.ts';

// The run report's word count (landed-measures.ts → countWords → countWordUnits) is counted on
// every landed row; its one-pass form must give the definition's count (countWordUnitsRef) on
// every text: CJK, kana and their marks, Thai/Lao/Khmer/Myanmar, Hangul, full-width forms,
// ExtendNumLet and mid-word punctuation next to kana and digits, emoji (ZWJ, flags), combining
// marks, lone surrogates, astral Han, and every kind of whitespace, including the ones `\s` does
// not know (U+0085, U+180E, U+200B).
const piece = fc.constantFrom(
  '数据',
  '清洗',
  '我喜欢吃苹果',
  '𠀀',
  '。',
  '，',
  '、',
  '「',
  '」',
  'データ',
  'ー',
  'ｶﾀｶﾅ',
  'ｰ',
  'ﾞ',
  '\u3099',
  'の',
  'です',
  'ภาษาไทย',
  'ພາສາລາວ',
  'ភាសាខ្មែរ',
  'မြန်မာ',
  '한국어',
  'ＡＢＣ',
  '１２',
  '１',
  '！',
  '_',
  "'",
  ':',
  '.',
  ',',
  '3',
  '😀',
  '👨‍👩‍👧',
  '🇯🇵',
  '\u200d',
  '\ud800',
  '\udc00',
  'a',
  'A',
  'é',
  'e\u0301',
  '\u0301',
  ' ',
  '  ',
  '\t',
  '\n',
  '\r\n',
  '\u000b',
  '\u3000',
  '\u00a0',
  '\u1680',
  '\u2005',
  '\u2028',
  '\u202f',
  '\u205f',
  '\ufeff',
  '\u0085',
  '\u180e',
  '\u200b',
  '\u0007',
  '...',
  'the cat',
  '2+2=4',
);
const pieces = fc.array(piece, { maxLength: 40 }).map((xs) => xs.join(''));
const texts = fc.oneof(
  { weight: 4, arbitrary: pieces },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 60 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 60 }) },
);

describe('the one-pass word count (text-units.ts countWordUnits)', () => {
  it('splits tokens where `\\s` does: isJsSpace is /\\s/ on every code unit', () => {
    for (let c = 0; c < 0x10000; c++)
      expect(isJsSpace(c), c.toString(16)).toBe(/\s/.test(String.fromCharCode(c)));
  });

  it('counts what the definition counts on hostile mixed-script texts', () => {
    fc.assert(
      fc.property(texts, (t) => {
        expect(countWordUnits(t, isSpaceCode)).toBe(countWordUnitsRef(t, isSpaceCode));
      }),
      { numRuns: 3000, seed: 4040 },
    );
  });

  it('counts what the definition counts on the dj10 bench file’s texts (seed 7)', () => {
    const rng = new Rng('dj10-words:7');
    for (let i = 0; i < 3000; i++) {
      const t = cjkText(() => rng.float(), i);
      expect(countWordUnits(t, isSpaceCode), t).toBe(countWordUnitsRef(t, isSpaceCode));
    }
  });

  it('keeps the golden counts the report has always given', () => {
    expect(countWords('The cat sat. 2+2=4 ?')).toBe(5);
    expect(countWords('我喜欢吃苹果。你呢？')).toBe(6);
    expect(countWords('東京に住んでいます')).toBe(6);
    expect(countWords('안녕하세요 세계')).toBe(2);
    expect(countWords('。。。')).toBe(1);
    expect(countWords('数据 data　清洗\u2028x')).toBe(4);
    expect(textLength('我喜欢吃苹果。你呢？ ok')).toEqual({ chars: 13, words: 7 });
    const m = measureLanded([
      { id: 'a', taskset: 't', prompt: '東京に住んでいます', features: {}, meta: {} },
    ]);
    expect(m.words).toEqual([6]);
  });
});
