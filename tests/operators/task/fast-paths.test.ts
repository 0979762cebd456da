import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  dedupKey,
  dedupKeyHash,
  generalDedupKey,
  hashDedupKey,
} from '../../../src/operators/task/dedup-key.ts';
import {
  normalizeWhitespace,
  normalizeWhitespaceFull,
} from '../../../src/operators/task/normalize-whitespace.ts';

// Characters that exercise every branch: letters, digits, ASCII punctuation and symbols, all
// whitespace kinds, and a few non-ASCII ones that force the general path.
const alphabet = fc.constantFrom(
  ...'aZ09 .,!?$+=()-_\'"\t\n\r\u00a0é\u2028#',
  '  ',
  '\n\n',
  '\n\n\n',
  ' \n ',
);
const text = fc.array(alphabet, { maxLength: 40 }).map((xs) => xs.join(''));

describe('fast paths agree with the reference implementations', () => {
  it('dedupKey (ASCII fast path) = generalDedupKey', () => {
    fc.assert(
      fc.property(text, fc.boolean(), (t, lowercase) => {
        const opts = {
          unicode: 'NFKC' as const,
          lowercase,
          stripPunctuation: true,
          whitespace: 'collapse' as const,
        };
        expect(dedupKey(t, opts)).toBe(generalDedupKey(t, opts));
      }),
      { numRuns: 3000 },
    );
  });

  it('dedupKeyHash (hashing the ASCII fast path’s bytes) = the hash of the reference key string', () => {
    fc.assert(
      fc.property(text, (t) => {
        expect(dedupKeyHash(t)).toEqual(hashDedupKey(generalDedupKey(t)));
      }),
      { numRuns: 3000 },
    );
    // Different normal forms hash apart; equal ones together.
    expect(dedupKeyHash('What is 2+2?')).toEqual(dedupKeyHash('  what is 2 + 2 ? '));
    expect(dedupKeyHash('What is 2+3?')).not.toEqual(dedupKeyHash('What is 2+2?'));
  });

  it('normalizeWhitespace (already-normal fast path) = normalizeWhitespaceFull, for every newline mode', () => {
    fc.assert(
      fc.property(text, fc.constantFrom('keep', 'paragraphs', 'collapse'), (t, mode) => {
        expect(normalizeWhitespace(t, mode)).toBe(normalizeWhitespaceFull(t, mode));
      }),
      { numRuns: 3000 },
    );
  });
});
