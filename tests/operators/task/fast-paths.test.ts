import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dedupKey, generalDedupKey } from '../../../src/operators/task/dedup-key.ts';
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

  it('normalizeWhitespace (already-normal fast path) = normalizeWhitespaceFull, for every newline mode', () => {
    fc.assert(
      fc.property(text, fc.constantFrom('keep', 'paragraphs', 'collapse'), (t, mode) => {
        expect(normalizeWhitespace(t, mode)).toBe(normalizeWhitespaceFull(t, mode));
      }),
      { numRuns: 3000 },
    );
  });
});
