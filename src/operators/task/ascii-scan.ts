import type { AsciiProfile } from '../ascii-profile.ts';
import { ASCII_PUNCTUATION } from './dedup-key.ts';

/**
 * text-profile.ts's one scan of an ASCII text, in named steps: a word's letters and digits
 * (`scanWord`), a space (`scanSpace`), any other character (`scanOther`), each feeding the counts
 * and exact_dedup's key hash (`KeyHash`, dedup-key.ts's three multiply lanes and finish). The state
 * lives on one reused scanner object, so a row allocates nothing but its profile.
 */

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

/** exact_dedup's default key hash, fed one key character at a time (dedup-key.ts's lanes). */
class KeyHash {
  a = 0;
  b = 0;
  h = 0;
  len = 0;
  /** Whitespace seen since the key's last character, and whether that character was a letter/digit. */
  pending = 0;
  lastAlnum = 0;
  key = 0;
  check = 0;

  reset(): void {
    this.a = 0x9e3779b9;
    this.b = 0x85ebca6b;
    this.h = 0xc2b2ae35;
    this.len = 0;
    this.pending = 0;
    this.lastAlnum = 0;
  }

  /** One key character (already folded). */
  mix(c: number): void {
    this.a = Math.imul(this.a ^ c, 0x01000193);
    this.b = Math.imul(this.b ^ c, 0x5bd1e995);
    this.h = Math.imul(this.h ^ c, 0x27d4eb2d);
    this.len++;
  }

  /** Before a key character: a pending whitespace run between two letters/digits is one space. */
  settleSpace(isAlnum: number): void {
    if (this.pending === 0) return;
    this.pending = 0;
    if ((this.lastAlnum & isAlnum) !== 0) this.mix(32);
  }

  /** Finish the lanes: `key` (53 bits) and `check` (32 bits) hold the result. */
  finish(): void {
    let a = this.a;
    let b = this.b;
    let h = this.h;
    a = Math.imul(a ^ (a >>> 15), 0x2c1b3c6d) ^ Math.imul(b ^ (b >>> 13), 0x297a2d39);
    b = Math.imul(b ^ (b >>> 16), 0x85ebca6b) ^ Math.imul(a ^ (a >>> 13), 0xc2b2ae35);
    h = Math.imul(h ^ (h >>> 16), 0x7feb352d) ^ (a >>> 7) ^ this.len;
    this.key = (a >>> 0) * 2097152 + ((b >>> 0) & 0x1fffff);
    this.check = h >>> 0;
  }
}

class AsciiScanner {
  private readonly key = new KeyHash();
  alnum = 0;
  space = 0;
  words = 0;
  /** The classes of every character other than a lower-case letter or a space, or-ed. */
  seen = 0;
  /** 1 after whitespace (and at the start): the next non-space character begins a word. */
  afterSpace = 1;
  /** 1 right after a space character: a second one is a double space. */
  afterBlank = 0;
  doubleSpace = 0;

  /** The profile of `text`, or null when it holds any non-ASCII character. */
  scan(text: string): AsciiProfile | null {
    this.reset();
    const n = text.length;
    for (let i = 0; i < n; i++) {
      const c = text.charCodeAt(i);
      // Lower-case letters and single spaces first: most of any prose.
      if (c >= 97 && c <= 122) i = this.scanWord(text, i, c);
      else if (c === 32) this.scanSpace();
      else if (c >= 128) return null;
      else this.scanOther(text, i, c);
    }
    return this.profile(text);
  }

  private reset(): void {
    this.key.reset();
    this.alnum = 0;
    this.space = 0;
    this.words = 0;
    this.seen = 0;
    this.afterSpace = 1;
    this.afterBlank = 0;
    this.doubleSpace = 0;
  }

  /**
   * A lower-case letter at `i` and the letters and digits after it: they only count and enter the
   * key (folded), skipping every other test (about half the scan's time on prose). Returns the
   * index of the word's last character.
   */
  private scanWord(text: string, i: number, c: number): number {
    const key = this.key;
    this.words += this.afterSpace;
    this.afterSpace = 0;
    this.afterBlank = 0;
    key.settleSpace(1);
    key.mix(c);
    // The lanes in locals for the loop (fields stay in memory: ~1.5× slower scans).
    let { a, b, h } = key;
    const n = text.length;
    let j = i + 1;
    for (; j < n; j++) {
      let d = text.charCodeAt(j);
      if (d >= 97 ? d > 122 : d < 48 || (d > 57 && (d < 65 || d > 90))) break;
      if (d <= 90 && d >= 65) d += 32;
      a = Math.imul(a ^ d, 0x01000193);
      b = Math.imul(b ^ d, 0x5bd1e995);
      h = Math.imul(h ^ d, 0x27d4eb2d);
    }
    key.a = a;
    key.b = b;
    key.h = h;
    key.len += j - i - 1;
    this.alnum += j - i;
    key.lastAlnum = 1;
    return j - 1;
  }

  private scanSpace(): void {
    this.space++;
    this.doubleSpace |= this.afterBlank;
    this.afterSpace = 1;
    this.afterBlank = 1;
    this.key.pending = 1;
  }

  /** Any other ASCII character: classified, counted, and into the key unless punctuation. */
  private scanOther(text: string, i: number, c: number): void {
    const k = CLASS[c]!;
    this.seen |= k;
    this.afterBlank = 0;
    if ((k & SPACE) !== 0) {
      this.space++;
      this.afterSpace = 1;
      this.key.pending = 1;
      return;
    }
    const isAlnum = k & ALNUM;
    this.alnum += isAlnum;
    this.words += this.afterSpace;
    this.afterSpace = 0;
    // Punctuation is not in the key (nor does it end a whitespace run), but . and , between digits.
    if (
      (k & PUNCT) !== 0 &&
      ((k & DOT_COMMA) === 0 || !isDigit(text.charCodeAt(i - 1)) || !isDigit(text.charCodeAt(i + 1)))
    )
      return;
    this.key.settleSpace(isAlnum);
    this.key.mix(FOLDED[c]!);
    this.key.lastAlnum = isAlnum;
  }

  private profile(text: string): AsciiProfile {
    const n = text.length;
    const seen = this.seen;
    const key = this.key;
    key.finish();
    return {
      text,
      words: this.words,
      alnum: this.alnum,
      space: this.space,
      noMarkup: (seen & MARKUP) === 0,
      printable: (seen & NOT_PRINTABLE) === 0,
      whitespaceNormal:
        (seen & CONTROL) === 0 &&
        this.doubleSpace === 0 &&
        (n === 0 || (text.charCodeAt(0) !== 32 && text.charCodeAt(n - 1) !== 32)),
      dedupKey: key.key,
      dedupCheck: key.check,
    };
  }
}

const SCANNER = new AsciiScanner();

/**
 * The profile of `text`, or null when it holds any non-ASCII character. The dedup key hash is
 * dedup-key.ts's (the same three multiply lanes over the same key characters, the same finish),
 * fed while the text is scanned: a character the key keeps is mixed where it is classified.
 */
export function scanAscii(text: string): AsciiProfile | null {
  return SCANNER.scan(text);
}
