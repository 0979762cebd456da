import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { charRepetitionByHash } from '../../../src/operators/task/char-grams.ts';
import {
  charRepetitionRatio,
  charRepetitionRatioRef,
} from '../../../src/operators/task/char-repetition-filter.ts';
import {
  djSpecialRatio,
  djSpecialRatioRef,
  isDjSpecial,
  stripSpecial,
  stripSpecialRef,
} from '../../../src/operators/task/dj-words.ts';
import {
  normalizePunctuation,
  normalizePunctuationRef,
} from '../../../src/operators/task/normalize-punctuation.ts';
import { charClassCounts, charClassCountsFull } from '../../../src/operators/task/text-stats.ts';
import { repeatedGramsByHash } from '../../../src/operators/task/word-gram-counts.ts';
import { repeatedGramsRef } from '../../../src/operators/task/word-repetition-filter.ts';

// The fast paths the dj10 recipe (bench ingest --pipeline dj10) leans on, each against the
// definition it replaces: CJK, kana, full-width forms, emoji (surrogate pairs, ZWJ), lone
// surrogates, controls, and few distinct pieces so repeats are common.
const piece = fc.constantFrom(
  '数据',
  '清洗',
  '。',
  '，',
  'データ',
  'の',
  'ＡＢＣ',
  '１',
  '！',
  '😀',
  '👨‍👩‍👧',
  '\ud800',
  '\udc00',
  'a',
  'A',
  'é',
  'e\u0301',
  ' ',
  '\t',
  '\n',
  '\u3000',
  '\u00a0',
  '\u200b',
  '\ufeff',
  '\u0007',
  '...',
  'the cat',
);
const text = fc.array(piece, { maxLength: 60 }).map((xs) => xs.join(''));
const anyText = fc.string({ unit: 'binary', maxLength: 60 });
const texts = fc.oneof(text, anyText, fc.string({ unit: 'grapheme', maxLength: 60 }));

describe('character n-gram repetition by hash (char-grams.ts)', () => {
  it('gives the reference ratio, or −1, for every text and n', () => {
    fc.assert(
      fc.property(texts, fc.integer({ min: 1, max: 12 }), (t, n) => {
        const fast = charRepetitionByHash(t, n);
        if (fast !== -1) expect(fast).toBe(charRepetitionRatioRef(t, n));
        expect(charRepetitionRatio(t, n)).toBe(charRepetitionRatioRef(t, n));
      }),
      { numRuns: 5000, seed: 40 },
    );
  });

  it('decides ordinary texts itself, counting code points, not UTF-16 units', () => {
    // 啊×12: 3 windows of 10, all equal: one distinct 10-gram seen 3 times → k = min(1, 1) → 3/3.
    expect(charRepetitionByHash('啊'.repeat(12), 10)).toBe(1);
    // 😀 is two code units, one code point: 12 of them are 3 windows, as above.
    expect(charRepetitionByHash('😀'.repeat(12), 10)).toBe(1);
    // ab×3 with n=2: ab ×3, ba ×2 → 2 distinct, k = min(⌊√2⌋, 2) = 1 → 3/5.
    expect(charRepetitionByHash('ababab', 2)).toBe(3 / 5);
    expect(charRepetitionByHash('short', 10)).toBe(0);
  });
});

describe('Data-Juicer special characters by table (dj-words.ts)', () => {
  it('djSpecialRatio and stripSpecial give the references', () => {
    fc.assert(
      fc.property(texts, (t) => {
        expect(djSpecialRatio(t)).toBe(djSpecialRatioRef(t));
        expect(stripSpecial(t)).toBe(stripSpecialRef(t));
      }),
      { numRuns: 5000, seed: 41 },
    );
  });

  it('agree with isDjSpecial on every code point, and strip pairs whole', () => {
    for (let c = 0; c <= 0x10ffff; c += c < 0x10000 ? 1 : 97) {
      const ch = String.fromCodePoint(c);
      expect(djSpecialRatio(ch)).toBe(isDjSpecial(ch) ? 1 : 0);
    }
    expect(stripSpecial('😀数据！😀')).toBe('数据');
    expect(stripSpecial('\ud800数据\udc00')).toBe('\ud800数据\udc00');
  });
});

describe('character classes by table (text-stats.ts)', () => {
  it('charClassCounts gives charClassCountsFull', () => {
    fc.assert(
      fc.property(texts, (t) => {
        expect(charClassCounts(t)).toEqual(charClassCountsFull(t));
      }),
      { numRuns: 5000, seed: 42 },
    );
  });

  it('agrees on every code point', () => {
    for (let c = 0; c <= 0x10ffff; c += c < 0x10000 ? 1 : 97) {
      const ch = String.fromCodePoint(c);
      expect(charClassCounts(ch)).toEqual(charClassCountsFull(ch));
    }
  });
});

describe('punctuation and word n-grams without a regular expression or a string per n-gram', () => {
  it('normalizePunctuation gives the reference on any text, and the table on every code point', () => {
    fc.assert(
      fc.property(texts, (t) => {
        expect(normalizePunctuation(t)).toBe(normalizePunctuationRef(t));
      }),
      { numRuns: 5000, seed: 43 },
    );
    for (let c = 0; c < 0x10000; c++) {
      const ch = String.fromCharCode(c);
      expect(normalizePunctuation(ch)).toBe(normalizePunctuationRef(ch));
    }
    expect(normalizePunctuation('数据，清洗。（注）…')).toBe('数据,清洗.(注)...');
  });

  it('repeatedGramsByHash counts what the string Map counts, or −1', () => {
    const word = fc.constantFrom('数据', 'the', 'cat', 'データ', '😀', 'a', 'A', '');
    fc.assert(
      fc.property(
        fc.array(fc.oneof(word, fc.string({ maxLength: 3 })), { maxLength: 60 }),
        fc.integer({ min: 1, max: 6 }),
        (words, n) => {
          const total = words.length - n + 1;
          if (total <= 0) return;
          const fast = repeatedGramsByHash(words, n, total);
          if (fast !== -1) expect(fast).toBe(repeatedGramsRef(words, n, total));
        },
      ),
      { numRuns: 5000, seed: 44 },
    );
    // the cat ×3 (2-grams: "the cat" ×3, "cat the" ×2): all 5 repeated.
    expect(repeatedGramsByHash(['the', 'cat', 'the', 'cat', 'the', 'cat'], 2, 5)).toBe(5);
  });
});
