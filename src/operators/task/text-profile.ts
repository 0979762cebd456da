import type { AsciiProfile } from '../ascii-profile.ts';
import { ASCII_PUNCTUATION } from './dedup-key.ts';
import { HiddenSlot } from './hidden-slot.ts';

/**
 * One scan of an ASCII text that answers what the cleaning chain asks of it, row after row:
 * would strip_html, normalize_unicode or normalize_whitespace change it, and how many characters,
 * words, letters/digits and spaces does it hold (length_filter, special_char_ratio_filter,
 * alnum_ratio_filter, the run report). Each of those scanned the same text again (~0.3–0.8 µs a
 * row each); now the first one scans and the rest read the answer kept on the task.
 *
 * The profile rides on the task in a hidden slot (hidden-slot.ts: JSON, structured clone, spread
 * and deep equality never see it) together with the text it describes, so a step that changes the text
 * gets a fresh profile. Texts with any character ≥ U+0080 have no profile: callers use their full
 * functions. Each flag is property-tested against the function it stands in for
 * (tests/operators/task/text-profile.test.ts).
 */
export type { AsciiProfile };

const ALNUM = 1;
const SPACE = 2;
const MARKUP = 4;
/** Fails normalize_unicode's plain-ASCII test. */
const NOT_PRINTABLE = 8;
/** Any control character (fails the one-line whitespace test). */
const CONTROL = 16;
/** Unicode punctuation (\p{P}): the dedup key drops it (but `.` and `,` between two digits). */
const PUNCT = 32;
/** `.` or `,`: kept in the dedup key between two digits ("3.5", "1,000"). */
const DOT_COMMA = 64;

const CLASS = new Uint8Array(128);
/** The character the dedup key holds for an ASCII character (upper case folded). */
const FOLDED = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  let k = 0;
  if ((c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122)) k |= ALNUM;
  if (c === 32 || (c >= 9 && c <= 13)) k |= SPACE;
  if (c === 60 || c === 38) k |= MARKUP;
  if (c === 0x7f || (c < 0x20 && c !== 9 && c !== 10 && c !== 13)) k |= NOT_PRINTABLE;
  if (c < 0x20) k |= CONTROL;
  if (ASCII_PUNCTUATION.includes(String.fromCharCode(c))) k |= PUNCT;
  if (c === 46 || c === 44) k |= DOT_COMMA;
  CLASS[c] = k;
  FOLDED[c] = c >= 65 && c <= 90 ? c + 32 : c;
}

const isDigit = (c: number) => c >= 48 && c <= 57;

/**
 * The profile of `text`, or null when it holds any non-ASCII character. The dedup key hash is
 * dedup-key.ts's (the same three multiply lanes over the same key characters, the same finish),
 * fed while the text is scanned: a character the key keeps is mixed where it is classified.
 */
export function scanAscii(text: string): AsciiProfile | null {
  const n = text.length;
  let alnum = 0;
  let space = 0;
  let words = 0;
  let seen = 0;
  // 1 after whitespace (and at the start): the next non-space character begins a word.
  let afterSpace = 1;
  // 1 right after a space character: a second one is a double space.
  let afterBlank = 0;
  let doubleSpace = 0;
  // The dedup key: whitespace pending since its last character; whether that character is a letter/digit.
  let pending = 0;
  let lastAlnum = 0;
  let a = 0x9e3779b9;
  let b = 0x85ebca6b;
  let h = 0xc2b2ae35;
  let len = 0;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    // Lower-case letters and single spaces first: most of any prose.
    if (c >= 97 && c <= 122) {
      alnum++;
      words += afterSpace;
      afterSpace = 0;
      afterBlank = 0;
      // A whitespace run between two letters/digits is one space in the key.
      if (pending !== 0) {
        pending = 0;
        if (lastAlnum !== 0) {
          a = Math.imul(a ^ 32, 0x01000193);
          b = Math.imul(b ^ 32, 0x5bd1e995);
          h = Math.imul(h ^ 32, 0x27d4eb2d);
          len++;
        }
      }
      a = Math.imul(a ^ c, 0x01000193);
      b = Math.imul(b ^ c, 0x5bd1e995);
      h = Math.imul(h ^ c, 0x27d4eb2d);
      // The rest of the word: letters and digits only count and enter the key (folded), so they
      // skip every other test (about half the scan's time on prose).
      let j = i + 1;
      for (; j < n; j++) {
        let d = text.charCodeAt(j);
        if (d >= 97 ? d > 122 : d < 48 || (d > 57 && (d < 65 || d > 90))) break;
        if (d <= 90 && d >= 65) d += 32;
        a = Math.imul(a ^ d, 0x01000193);
        b = Math.imul(b ^ d, 0x5bd1e995);
        h = Math.imul(h ^ d, 0x27d4eb2d);
      }
      alnum += j - i - 1;
      len += j - i;
      i = j - 1;
      lastAlnum = 1;
    } else if (c === 32) {
      space++;
      doubleSpace |= afterBlank;
      afterSpace = 1;
      afterBlank = 1;
      pending = 1;
    } else {
      if (c >= 128) return null;
      const k = CLASS[c]!;
      seen |= k;
      afterBlank = 0;
      if ((k & SPACE) !== 0) {
        space++;
        afterSpace = 1;
        pending = 1;
        continue;
      }
      const isAlnum = k & ALNUM;
      alnum += isAlnum;
      words += afterSpace;
      afterSpace = 0;
      // Punctuation is not in the key (nor does it end a whitespace run), but . and , between digits.
      if (
        (k & PUNCT) !== 0 &&
        ((k & DOT_COMMA) === 0 || !isDigit(text.charCodeAt(i - 1)) || !isDigit(text.charCodeAt(i + 1)))
      )
        continue;
      if (pending !== 0) {
        pending = 0;
        if ((lastAlnum & isAlnum) !== 0) {
          a = Math.imul(a ^ 32, 0x01000193);
          b = Math.imul(b ^ 32, 0x5bd1e995);
          h = Math.imul(h ^ 32, 0x27d4eb2d);
          len++;
        }
      }
      const f = FOLDED[c]!;
      a = Math.imul(a ^ f, 0x01000193);
      b = Math.imul(b ^ f, 0x5bd1e995);
      h = Math.imul(h ^ f, 0x27d4eb2d);
      len++;
      lastAlnum = isAlnum;
    }
  }
  a = Math.imul(a ^ (a >>> 15), 0x2c1b3c6d) ^ Math.imul(b ^ (b >>> 13), 0x297a2d39);
  b = Math.imul(b ^ (b >>> 16), 0x85ebca6b) ^ Math.imul(a ^ (a >>> 13), 0xc2b2ae35);
  h = Math.imul(h ^ (h >>> 16), 0x7feb352d) ^ (a >>> 7) ^ len;
  return {
    text,
    words,
    alnum,
    space,
    noMarkup: (seen & MARKUP) === 0,
    printable: (seen & NOT_PRINTABLE) === 0,
    whitespaceNormal:
      (seen & CONTROL) === 0 &&
      doubleSpace === 0 &&
      (n === 0 || (text.charCodeAt(0) !== 32 && text.charCodeAt(n - 1) !== 32)),
    dedupKey: (a >>> 0) * 2097152 + ((b >>> 0) & 0x1fffff),
    dedupCheck: h >>> 0,
  };
}

/** What a task carries: the profile of one of its texts, or `{ text }` alone for a non-ASCII text. */
type Kept = AsciiProfile | { readonly text: string; readonly words?: undefined };

/** The profile of `text` (a text of `task`): the one kept on the task when it is for this text, else scanned and kept. */
export function textProfile(task: object, text: string): AsciiProfile | null {
  const kept = HiddenSlot.get(task) as Kept | undefined;
  if (kept !== undefined && kept.text === text)
    return kept.words === undefined ? null : (kept as AsciiProfile);
  const fresh = scanAscii(text);
  HiddenSlot.set(task, fresh ?? { text });
  return fresh;
}

/** The profile kept on `task` for `text`, without scanning (undefined when none is kept). */
export function keptProfile(task: object, text: string): AsciiProfile | null | undefined {
  const kept = HiddenSlot.get(task) as Kept | undefined;
  if (kept === undefined || kept.text !== text) return undefined;
  return kept.words === undefined ? null : (kept as AsciiProfile);
}

/**
 * Int32s a packed profile takes: words, alnum, space, flags, then the dedup key's low 32 bits, its
 * high 21 bits (−1: no key) and the check. The key rides along so the thread that dedups does not
 * hash the text again (at 1M rows ~0.5 s of the main thread's time with a worker).
 */
export const PACKED_PROFILE_INTS = 7;

/** A profile as PACKED_PROFILE_INTS numbers, to hand to another thread; words −1: none. */
export function packProfile(p: AsciiProfile | null | undefined, out: Int32Array, at: number): void {
  if (!p) {
    out.fill(0, at, at + PACKED_PROFILE_INTS);
    out[at] = -1;
    return;
  }
  out[at] = p.words;
  out[at + 1] = p.alnum;
  out[at + 2] = p.space;
  out[at + 3] = (p.noMarkup ? 1 : 0) | (p.printable ? 2 : 0) | (p.whitespaceNormal ? 4 : 0);
  if (p.dedupKey < 0) {
    out[at + 4] = 0;
    out[at + 5] = -1;
    out[at + 6] = 0;
  } else {
    const hi = Math.floor(p.dedupKey / 4294967296);
    out[at + 4] = p.dedupKey - hi * 4294967296;
    out[at + 5] = hi;
    out[at + 6] = p.dedupCheck;
  }
}

/** Keep on `task` the profile another thread packed for `text` (the same characters it scanned). */
export function adoptProfile(task: object, text: string, packed: Int32Array, at: number): void {
  if (packed[at]! < 0 || HiddenSlot.get(task) !== undefined) return;
  const flags = packed[at + 3]!;
  const value: AsciiProfile = {
    text,
    words: packed[at]!,
    alnum: packed[at + 1]!,
    space: packed[at + 2]!,
    noMarkup: (flags & 1) !== 0,
    printable: (flags & 2) !== 0,
    whitespaceNormal: (flags & 4) !== 0,
    dedupKey: packedDedupKey(packed, at),
    dedupCheck: packedDedupCheck(packed, at),
  };
  HiddenSlot.set(task, value);
}

/** The dedup key of a packed profile (−1: none). */
export function packedDedupKey(packed: Int32Array, at: number): number {
  const hi = packed[at + 5]!;
  return hi < 0 ? -1 : hi * 4294967296 + (packed[at + 4]! >>> 0);
}

/** The 32-bit check beside a packed profile's dedup key (0 when it has none). */
export function packedDedupCheck(packed: Int32Array, at: number): number {
  return packed[at + 5]! < 0 ? 0 : packed[at + 6]! >>> 0;
}
