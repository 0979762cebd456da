/**
 * Counting helpers shared by the text filters. Characters are Unicode code points; a word is a
 * run of non-whitespace (whitespace is what `\s` matches), split further inside CJK and Thai runs
 * (see text-units.ts).
 */
import { lazyCodeUnitTable, pairAt } from './code-unit-table.ts';
import { type AsciiProfile, textProfile } from './text-profile.ts';
import { countWordUnits, isJsSpace } from './text-units.ts';

/** JavaScript's `\s`, one code unit (text-units.ts holds the one definition). */
export const isSpaceCode = isJsSpace;

export function countChars(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    // A surrogate pair is one character: count only its high half.
    if (c < 0xdc00 || c > 0xdfff) n++;
  }
  return n;
}

/** Words as text-units.ts defines them: whitespace runs, and segmenter words inside CJK/Thai runs. */
/** The reference word count (countWords takes a one-pass fast path below U+0E00). */
export function countWordsFull(text: string): number {
  return countWordUnits(text, isSpaceCode);
}

export function countWords(text: string): number {
  // Fast path: below U+0E00 (Thai, the lowest unspaced script) words are whitespace runs, counted
  // in one pass without text-units.ts's script scan.
  let n = 0;
  let inWord = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x0e00) return countWordUnits(text, isSpaceCode);
    if (c === 32 || (c >= 9 && c <= 13) || (c >= 0x80 && isSpaceCode(c))) inWord = false;
    else if (!inWord) {
      inWord = true;
      n++;
    }
  }
  return n;
}

const LETTER_OR_DIGIT = /[\p{L}\p{N}\p{M}]/u;

export interface CharClassCounts {
  /** All code points. */
  total: number;
  /** Letters, digits and combining marks (\p{L}, \p{N}, \p{M}). */
  alnum: number;
  /** Whitespace. */
  space: number;
  /** Everything else: punctuation, symbols, emoji, control characters. */
  special: number;
}

export function charClassCounts(text: string): CharClassCounts {
  let total = 0;
  let alnum = 0;
  let space = 0;
  // The ASCII prefix (usually the whole text) by char code, without a string per character.
  let i = 0;
  for (; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 128) break;
    total++;
    if ((c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122)) alnum++;
    else if (c === 32 || (c >= 9 && c <= 13)) space++;
  }
  if (i === text.length) return { total, alnum, space, special: total - alnum - space };
  // The rest by a table of the same classes (charClassCountsFull is the reference).
  const table = classTable();
  for (; i < text.length; i++) {
    total++;
    if (pairAt(text, i)) {
      const cls = classOf(text.slice(i, i + 2), text.codePointAt(i)!);
      if (cls === ALNUM) alnum++;
      else if (cls === SPACE) space++;
      i++;
      continue;
    }
    const cls = table[text.charCodeAt(i)]!;
    if (cls === ALNUM) alnum++;
    else if (cls === SPACE) space++;
  }
  return { total, alnum, space, special: total - alnum - space };
}

const ALNUM = 1;
const SPACE = 2;

/** One code point's class as charClassCountsFull decides it: ALNUM, SPACE or 0 (special). */
function classOf(ch: string, c: number): number {
  if (c < 128) {
    if ((c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122)) return ALNUM;
    return isSpaceCode(c) ? SPACE : 0;
  }
  if (isSpaceCode(c)) return SPACE;
  return LETTER_OR_DIGIT.test(ch) ? ALNUM : 0;
}

const classTable = lazyCodeUnitTable(classOf);

/** The reference: every code point classified (charClassCounts takes an ASCII fast path first). */
export function charClassCountsFull(text: string): CharClassCounts {
  let total = 0;
  let alnum = 0;
  let space = 0;
  for (const ch of text) {
    total++;
    const c = ch.codePointAt(0)!;
    if (c < 128) {
      if ((c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122)) alnum++;
      else if (isSpaceCode(c)) space++;
    } else if (isSpaceCode(c)) space++;
    else if (LETTER_OR_DIGIT.test(ch)) alnum++;
  }
  return { total, alnum, space, special: total - alnum - space };
}

/**
 * `charClassCounts` of a text of `task`, read from the profile the chain keeps on the task
 * (text-profile.ts) when the text is ASCII: one scan serves every filter that asks.
 */
export function charClassCountsOf(task: object, text: string): CharClassCounts {
  const p = textProfile(task, text);
  return p === null ? charClassCounts(text) : profileCounts(p);
}

/** `charClassCounts` of an ASCII text, read from its profile. */
export function profileCounts(p: AsciiProfile): CharClassCounts {
  const total = p.text.length;
  return { total, alnum: p.alnum, space: p.space, special: total - p.alnum - p.space };
}

/** Format a ratio for a drop reason: three decimals. */
export function fmtRatio(x: number): string {
  return x.toFixed(3);
}
