import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { asciiGramRepetition } from '../../../src/operators/task/ascii-word-grams.ts';
import { wordTokens } from '../../../src/operators/task/text-units.ts';
import {
  repetitionRatioOf,
  wordRepetitionRatio,
} from '../../../src/operators/task/word-repetition-filter.ts';

// Few distinct words (repeats are common), mixed case, punctuation at token ends and inside,
// every ASCII whitespace, and non-ASCII characters that must send the text to the general path.
const piece = fc.constantFrom(
  'the',
  'The',
  'THE',
  'cat',
  'cAt',
  'a',
  "don't",
  '...',
  '!?',
  '(cat)',
  'cat,',
  '3.5',
  '-',
  ' ',
  '  ',
  '\t',
  '\n',
  '\u000b',
  '\u000c',
  '\r',
  'é',
  '中文',
  '\u00a0',
  '\u2028',
);
const text = fc.array(piece, { maxLength: 80 }).map((xs) => xs.join(''));
// Every ASCII code unit (controls, DEL) and any UTF-16 (lone surrogates) for the general path.
const asciiText = fc.string({ unit: 'binary-ascii', maxLength: 80 });
const anyText = fc.string({ unit: 'binary', maxLength: 40 });

describe('asciiGramRepetition', () => {
  it('equals repetitionRatioOf(wordTokens(text), n) on ASCII text, −1 otherwise', () => {
    fc.assert(
      fc.property(fc.oneof(text, asciiText, anyText), fc.integer({ min: 1, max: 5 }), (t, n) => {
        const fast = asciiGramRepetition(t, n);
        if (/^[\u0000-\u007f]*$/.test(t)) expect(fast).toBe(repetitionRatioOf(wordTokens(t), n));
        else expect(fast).toBe(-1);
        expect(wordRepetitionRatio(t, n)).toBe(repetitionRatioOf(wordTokens(t), n));
      }),
      { numRuns: 5000, seed: 40 },
    );
  });

  it('counts each occurrence of a repeated n-gram, case-folded, punctuation trimmed', () => {
    // 2-grams: "the cat" ×3 (folded, trimmed), "cat the" ×2, "cat sat" ×1 → 5 of 6 repeated.
    expect(asciiGramRepetition('The cat, (the) CAT the cat! sat', 2)).toBe(5 / 6);
    expect(asciiGramRepetition('one', 2)).toBe(0);
    expect(asciiGramRepetition('... !!! ???', 1)).toBe(0);
    expect(asciiGramRepetition('数据 the the', 1)).toBe(-1);
  });

  it('stays exact over long texts with many equal grams (the sort and the groups)', () => {
    const long = Array.from({ length: 3000 }, (_, i) => ['a', 'b', 'c', `w${i % 700}`][i % 4]).join(' ');
    for (const n of [1, 2, 3, 10])
      expect(asciiGramRepetition(long, n)).toBe(repetitionRatioOf(wordTokens(long), n));
  });
});
