import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dedupKeyHash, generalDedupKey, hashDedupKey } from '../../../src/operators/task/dedup-key.ts';
import { normalizeUnicode, normalizeUnicodeFull } from '../../../src/operators/task/normalize-unicode.ts';
import {
  charClassCounts,
  charClassCountsFull,
  countWords,
  countWordsFull,
} from '../../../src/operators/task/text-stats.ts';

// ASCII of every class (controls included), whitespace kinds, and non-ASCII that forces the general
// paths: accents, a spacing accent, invisible characters, Thai/Han (segmented words), emoji.
const alphabet = fc.constantFrom(
  ...'aZ09 .,!?$+=()-_\'"\t\n\r\u000b\u000c\u0001\u007f\u00a0é\u00b4\u200b\u2028\u3000#ﬁ',
  '😀',
  'ภาษาไทย',
  '中文',
  '  ',
);
const text = fc.array(alphabet, { maxLength: 40 }).map((xs) => xs.join(''));
const asciiText = fc.string({ maxLength: 60 });

describe('ingest fast paths agree with their references', () => {
  it('countWords = countWordsFull', () => {
    fc.assert(
      fc.property(fc.oneof(text, asciiText), (t) => {
        expect(countWords(t)).toBe(countWordsFull(t));
      }),
      { numRuns: 3000, seed: 15 },
    );
    expect(countWords('  two  words\t')).toBe(2);
    expect(countWords('我是中国人 and more')).toBe(countWordsFull('我是中国人 and more'));
  });

  it('charClassCounts = charClassCountsFull (an ASCII prefix, then the rest)', () => {
    fc.assert(
      fc.property(fc.oneof(text, asciiText), (t) => {
        expect(charClassCounts(t)).toEqual(charClassCountsFull(t));
      }),
      { numRuns: 3000, seed: 15 },
    );
    expect(charClassCounts('ab, cd!')).toEqual({ total: 7, alnum: 4, space: 1, special: 2 });
  });

  it('normalizeUnicode = normalizeUnicodeFull for every form and option', () => {
    const opts = fc.record({
      form: fc.constantFrom('NFC', 'NFKC', 'NFD', 'NFKD', 'none'),
      stripInvisible: fc.boolean(),
      asciiQuotes: fc.boolean(),
      asciiDashes: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.oneof(text, asciiText), opts, (t, o) => {
        expect(normalizeUnicode(t, o)).toBe(normalizeUnicodeFull(t, o));
      }),
      { numRuns: 3000, seed: 15 },
    );
  });

  it('dedupKeyHash (hashed while the ASCII key is produced) = the hash of the reference key, either case option', () => {
    fc.assert(
      fc.property(fc.oneof(text, asciiText), fc.boolean(), (t, lowercase) => {
        const o = {
          unicode: 'NFKC' as const,
          lowercase,
          stripPunctuation: true,
          whitespace: 'collapse' as const,
        };
        expect(dedupKeyHash(t, o)).toEqual(hashDedupKey(generalDedupKey(t, o)));
      }),
      { numRuns: 3000, seed: 15 },
    );
    expect(dedupKeyHash('What is 2+2?')).toEqual(dedupKeyHash('  what is 2 + 2 ? '));
  });
});
