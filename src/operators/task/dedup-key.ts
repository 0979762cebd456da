/**
 * The normal form exact dedup compares. Defaults make formatting variants collide
 * ("What is 2+2?" and "  what is 2 + 2 ? " both become "what is 2+2") while keeping apart
 * texts that differ in any number ("3.5" and "35" stay different).
 */
export interface DedupKeyOptions {
  /** Unicode normal form applied first. NFKC folds full-width digits, ligatures, superscripts. */
  unicode: 'NFKC' | 'NFC' | 'none';
  lowercase: boolean;
  /** Remove punctuation (\p{P}), except `.` and `,` between two digits. Symbols (+ = $ %) stay. */
  stripPunctuation: boolean;
  /**
   * `collapse`: runs of whitespace become one space, the ends are trimmed, and spaces next to a
   * character that is not a letter or digit are removed ("2 + 2" → "2+2"); `remove`: all
   * whitespace is removed; `keep`: untouched.
   */
  whitespace: 'collapse' | 'remove' | 'keep';
}

export const DEFAULT_DEDUP_KEY_OPTIONS: DedupKeyOptions = {
  unicode: 'NFKC',
  lowercase: true,
  stripPunctuation: true,
  whitespace: 'collapse',
};

const PUNCT = /\p{P}/gu;
const NEXT_TO_SYMBOL = / (?=[^\p{L}\p{N}])|(?<=[^\p{L}\p{N}]) /gu;

function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= '0' && c <= '9';
}

export function dedupKey(text: string, opts: DedupKeyOptions = DEFAULT_DEDUP_KEY_OPTIONS): string {
  if (opts.whitespace === 'collapse' && opts.stripPunctuation) {
    const fast = asciiDedupKey(text, opts.lowercase);
    if (fast !== null) return fast;
  }
  return generalDedupKey(text, opts);
}

/** The reference implementation (any text); `dedupKey` takes an ASCII fast path that must agree with it. */
export function generalDedupKey(text: string, opts: DedupKeyOptions = DEFAULT_DEDUP_KEY_OPTIONS): string {
  let s = opts.unicode === 'none' ? text : text.normalize(opts.unicode);
  if (opts.lowercase) s = s.toLowerCase();
  if (opts.stripPunctuation)
    s = s.replace(PUNCT, (m: string, at: number, str: string) =>
      (m === '.' || m === ',') && isDigit(str[at - 1]) && isDigit(str[at + 1]) ? m : '',
    );
  if (opts.whitespace === 'collapse') s = s.replace(/\s+/g, ' ').trim().replace(NEXT_TO_SYMBOL, '');
  else if (opts.whitespace === 'remove') s = s.replace(/\s+/g, '');
  return s;
}

/** ASCII characters in Unicode's punctuation categories (\p{P}); `$ + < = > ^ \` | ~` are symbols and stay. */
export const ASCII_PUNCTUATION = '!"#%&\'()*,-./:;?@[\\]_{}';
const ASCII_PUNCT = new Uint8Array(128);
for (const ch of ASCII_PUNCTUATION) ASCII_PUNCT[ch.charCodeAt(0)] = 1;

const isAsciiAlnum = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
const isAsciiDigit = (c: number) => c >= 48 && c <= 57;
const isAsciiSpace = (c: number) => c === 32 || (c >= 9 && c <= 13);

let scratch = new Uint8Array(1024);

/**
 * The dedup key as two independent hashes (53-bit map key + 32-bit check: 85 bits, so among a
 * billion texts a false match has a chance of ~1e-8) without building the key string for ASCII text.
 */
export function dedupKeyHash(
  text: string,
  opts: DedupKeyOptions = DEFAULT_DEDUP_KEY_OPTIONS,
): { key: number; check: number } {
  if (opts.whitespace === 'collapse' && opts.stripPunctuation) {
    const fast = asciiDedupKeyHash(text, opts.lowercase);
    if (fast !== null) return fast;
  }
  return hashDedupKey(generalDedupKey(text, opts));
}

/**
 * `hashUnits` of `asciiDedupKeyBytes`'s key, computed while the key is produced (no key bytes are
 * stored, no per-character callback): the same lanes, the same finish. Null for non-ASCII text.
 */
function asciiDedupKeyHash(text: string, lowercase: boolean): { key: number; check: number } | null {
  const n = text.length;
  let a = 0x9e3779b9;
  let b = 0x85ebca6b;
  let h = 0xc2b2ae35;
  let len = 0;
  let pendingSpace = false;
  let prev = -1;
  for (let i = 0; i < n; i++) {
    let c = text.charCodeAt(i);
    if (c >= 128) return null;
    if (ASCII_PUNCT[c] === 1) {
      if (
        !(
          (c === 46 || c === 44) &&
          isAsciiDigit(text.charCodeAt(i - 1)) &&
          isAsciiDigit(text.charCodeAt(i + 1))
        )
      )
        continue;
    } else if (isAsciiSpace(c)) {
      pendingSpace = true;
      continue;
    } else if (lowercase && c >= 65 && c <= 90) c += 32;
    if (pendingSpace && prev !== -1 && isAsciiAlnum(prev) && isAsciiAlnum(c)) {
      a = Math.imul(a ^ 32, 0x01000193);
      b = Math.imul(b ^ 32, 0x5bd1e995);
      h = Math.imul(h ^ 32, 0x27d4eb2d);
      len++;
    }
    pendingSpace = false;
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    h = Math.imul(h ^ c, 0x27d4eb2d);
    len++;
    prev = c;
  }
  a = Math.imul(a ^ (a >>> 15), 0x2c1b3c6d) ^ Math.imul(b ^ (b >>> 13), 0x297a2d39);
  b = Math.imul(b ^ (b >>> 16), 0x85ebca6b) ^ Math.imul(a ^ (a >>> 13), 0xc2b2ae35);
  h = Math.imul(h ^ (h >>> 16), 0x7feb352d) ^ (a >>> 7) ^ len;
  return { key: (a >>> 0) * 2097152 + ((b >>> 0) & 0x1fffff), check: h >>> 0 };
}

/** The hash pair of a key string (what dedupKeyHash computes from the key without building it). */
export function hashDedupKey(key: string): { key: number; check: number } {
  return hashUnits((i) => key.charCodeAt(i), key.length);
}

/** Three multiply-xorshift lanes over UTF-16 code units (ASCII bytes hash the same as their string). */
function hashUnits(at: (i: number) => number, n: number): { key: number; check: number } {
  let a = 0x9e3779b9;
  let b = 0x85ebca6b;
  let c = 0xc2b2ae35;
  for (let i = 0; i < n; i++) {
    const x = at(i);
    a = Math.imul(a ^ x, 0x01000193);
    b = Math.imul(b ^ x, 0x5bd1e995);
    c = Math.imul(c ^ x, 0x27d4eb2d);
  }
  a = Math.imul(a ^ (a >>> 15), 0x2c1b3c6d) ^ Math.imul(b ^ (b >>> 13), 0x297a2d39);
  b = Math.imul(b ^ (b >>> 16), 0x85ebca6b) ^ Math.imul(a ^ (a >>> 13), 0xc2b2ae35);
  c = Math.imul(c ^ (c >>> 16), 0x7feb352d) ^ (a >>> 7) ^ n;
  return { key: (a >>> 0) * 2097152 + ((b >>> 0) & 0x1fffff), check: c >>> 0 };
}

/**
 * The same key as the general path for pure-ASCII text (NFKC is the identity there), in one pass
 * without regular expressions or intermediate strings; null when the text has a non-ASCII character.
 */
function asciiDedupKeyBytes(text: string, lowercase: boolean): number {
  const n = text.length;
  if (scratch.length < n) scratch = new Uint8Array(n * 2);
  const out = scratch;
  let len = 0;
  let pendingSpace = false;
  let prev = -1;
  for (let i = 0; i < n; i++) {
    let c = text.charCodeAt(i);
    if (c >= 128) return -1;
    if (ASCII_PUNCT[c] === 1) {
      // Punctuation goes, except . and , between two digits ("3.5", "1,000").
      if (
        !(
          (c === 46 || c === 44) &&
          isAsciiDigit(text.charCodeAt(i - 1)) &&
          isAsciiDigit(text.charCodeAt(i + 1))
        )
      )
        continue;
    } else if (isAsciiSpace(c)) {
      pendingSpace = true;
      continue;
    } else if (lowercase && c >= 65 && c <= 90) c += 32;
    // A whitespace run becomes one space, kept only between two letters/digits (and never at the ends).
    if (pendingSpace && prev !== -1 && isAsciiAlnum(prev) && isAsciiAlnum(c)) out[len++] = 32;
    pendingSpace = false;
    out[len++] = c;
    prev = c;
  }
  return len;
}

function asciiDedupKey(text: string, lowercase: boolean): string | null {
  const len = asciiDedupKeyBytes(text, lowercase);
  return len < 0 ? null : latin1.decode(scratch.subarray(0, len));
}

const latin1 = new TextDecoder('latin1');
