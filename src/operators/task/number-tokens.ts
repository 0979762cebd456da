import type { Rational } from './rational.ts';
import { decimalPlaces, parseDecimal, toDecimalString } from './rational.ts';

/**
 * Numbers as they are written in prose: `16`, `80,000`, `2.50`. Each token keeps how it was
 * written (thousands commas, digits after the point) so a new value can be written the same way.
 */
export interface NumberToken {
  start: number;
  end: number;
  text: string;
  value: Rational;
  commas: boolean;
  places: number;
  /**
   * Glued to letters (`3rd`, `5kg`, `x2`), part of a time (`3:30`), a fraction or date (`1/2`,
   * `12/25`): such numbers are left exactly as they are.
   */
  opaque: boolean;
}

const NUMBER = /\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+/g;
const WORDISH = /[\p{L}_]/u;

/**
 * `question` prose treats numbers next to `/` as fractions or dates (opaque); in `solution`
 * prose a slash is division ("60/100 * 5"), so those numbers are ordinary.
 */
export function findNumberTokens(text: string, prose: 'question' | 'solution' = 'question'): NumberToken[] {
  const slashOpaque = prose === 'question';
  const out: NumberToken[] = [];
  for (const m of text.matchAll(NUMBER)) {
    const start = m.index;
    const end = start + m[0].length;
    const before = text[start - 1];
    const after = text[end];
    const after2 = text[end + 1];
    const opaque =
      (before !== undefined &&
        (WORDISH.test(before) || before === '.' || before === ':' || (slashOpaque && before === '/'))) ||
      (after !== undefined && WORDISH.test(after)) ||
      ((after === ':' || (slashOpaque && after === '/')) &&
        after2 !== undefined &&
        after2 >= '0' &&
        after2 <= '9') ||
      (after === ',' && after2 !== undefined && after2 >= '0' && after2 <= '9') ||
      (before === ',' && start >= 2 && /\d/.test(text[start - 2]!));
    const dot = m[0].indexOf('.');
    out.push({
      start,
      end,
      text: m[0],
      value: parseDecimal(m[0])!,
      commas: m[0].includes(','),
      places: dot < 0 ? 0 : m[0].length - dot - 1,
      opaque,
    });
  }
  return out;
}

/**
 * Write `value` in a token's style: at least as many digits after the point (more if the value
 * needs them), thousands commas if the original had them. Null for non-terminating values (1/3).
 */
export function formatLike(value: Rational, style: { commas: boolean; places: number }): string | null {
  return toDecimalString(value, style.places, style.commas);
}

const NUMBER_WORDS = new Map<string, number>(
  Object.entries({
    one: 1,
    two: 2,
    three: 3,
    four: 4,
    five: 5,
    six: 6,
    seven: 7,
    eight: 8,
    nine: 9,
    ten: 10,
    eleven: 11,
    twelve: 12,
    thirteen: 13,
    fourteen: 14,
    fifteen: 15,
    sixteen: 16,
    seventeen: 17,
    eighteen: 18,
    nineteen: 19,
    twenty: 20,
    thirty: 30,
    forty: 40,
    fifty: 50,
    sixty: 60,
    seventy: 70,
    eighty: 80,
    ninety: 90,
    hundred: 100,
    thousand: 1000,
    million: 1000000,
    half: 2,
    twice: 2,
    double: 2,
    triple: 3,
    thrice: 3,
    quarter: 4,
    third: 3,
    fourth: 4,
    fifth: 5,
    dozen: 12,
    dozens: 12,
    score: 20,
  }),
);

/** Values of English number words in the text ("five", "twice", "a dozen", "one-third"). */
export function numberWordValues(text: string): Set<number> {
  const out = new Set<number>();
  for (const m of text.toLowerCase().matchAll(/[a-z]+/g)) {
    const v = NUMBER_WORDS.get(m[0]) ?? NUMBER_WORDS.get(m[0].replace(/s$/, ''));
    if (v !== undefined) out.add(v);
  }
  return out;
}

/** Keep zero padding only where the original had it ("70.00" stays padded, "10.5" → "9", not "9.0"). */
export function styleOf(text: string, value: Rational): { commas: boolean; places: number } {
  const dot = text.indexOf('.');
  const written = dot < 0 ? 0 : text.length - dot - 1;
  return { commas: text.includes(','), places: written > (decimalPlaces(value) ?? 0) ? written : 0 };
}
