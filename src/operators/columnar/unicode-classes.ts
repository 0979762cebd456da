/**
 * Character classes for column-wise (SQL) forms of the text operators, built from the very
 * predicates the row-wise operators use, so that both paths classify every code point alike.
 * An engine's own `\pL`, `\s` or `lower()` follow its Unicode tables, which lag Node's (DuckDB's
 * RE2 disagrees with V8 on ~9,700 code points for letters/digits/marks, and its `\s` is ASCII
 * only: bench/engine/unicode-agreement.ts). A class here lists code point ranges explicitly
 * (RE2 syntax, `\x{…}`), so the engine's tables are never consulted.
 */
import { isSpaceCode } from '../task/text-stats.ts';
import { UNSPACED_SCRIPT } from '../task/text-units.ts';

const MAX = 0x10ffff;
const LETTER_DIGIT_MARK = /[\p{L}\p{N}\p{M}]/u;
const LETTER_DIGIT = /[\p{L}\p{N}]/u;

/** Ranges of the code points (surrogates excluded) for which `test` holds. */
export function codePointRanges(test: (c: number) => boolean): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  let start = -1;
  for (let c = 0; c <= MAX + 1; c++) {
    const inside = c <= MAX && (c < 0xd800 || c > 0xdfff) && test(c);
    if (inside && start < 0) start = c;
    else if (!inside && start >= 0) {
      out.push([start, c - 1]);
      start = -1;
    }
  }
  return out;
}

const hex = (c: number) => `\\x{${c.toString(16)}}`;

/** An RE2 bracket class (`[…]`, or `[^…]` when `negate`) of the given ranges. */
export function re2Class(ranges: ReadonlyArray<readonly [number, number]>, negate = false): string {
  const body = ranges.map(([a, b]) => (a === b ? hex(a) : `${hex(a)}-${hex(b)}`)).join('');
  return `[${negate ? '^' : ''}${body}]`;
}

function cached(build: () => Array<[number, number]>): () => Array<[number, number]> {
  let value: Array<[number, number]> | undefined;
  return () => {
    value ??= build();
    return value;
  };
}

/** text-stats.ts's alphanumeric: ASCII [0-9A-Za-z]; beyond ASCII, \p{L}\p{N}\p{M} that is not a space. */
export const alnumRanges = cached(() =>
  codePointRanges((c) =>
    c < 128
      ? (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122)
      : !isSpaceCode(c) && LETTER_DIGIT_MARK.test(String.fromCodePoint(c)),
  ),
);

/** text-stats.ts's whitespace (`isSpaceCode`, which is also what JS `\s` matches). */
export const spaceRanges = cached(() => codePointRanges(isSpaceCode));

/** \p{L}\p{N}: what text-units.ts keeps at a word's ends. */
export const letterDigitRanges = cached(() =>
  codePointRanges((c) => LETTER_DIGIT.test(String.fromCodePoint(c))),
);

/** Scripts written without spaces (text-units.ts UNSPACED_SCRIPT): words there need ICU's segmenter. */
export const unspacedRanges = cached(() =>
  codePointRanges((c) => UNSPACED_SCRIPT.test(String.fromCodePoint(c))),
);

/**
 * Code points beyond ASCII that JS lower-cases to something else (İ, Σ, Cyrillic and Greek
 * capitals…): a column-wise form lower-cases ASCII only (`translate`), so these stay row-wise.
 */
export const nonAsciiCasedRanges = cached(() =>
  codePointRanges((c) => c >= 128 && String.fromCodePoint(c).toLowerCase() !== String.fromCodePoint(c)),
);

/** SQL that lower-cases ASCII letters only (exact wherever `nonAsciiCasedRanges` is absent). */
export function asciiLowerSql(col: string): string {
  return `translate(${col}, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')`;
}

/** A SQL string literal. */
export function sqlString(s: string): string {
  return `'${s.replaceAll("'", "''")}'`;
}
