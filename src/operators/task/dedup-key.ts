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
const ASCII_PUNCT = new Uint8Array(128);
for (const ch of '!"#%&\'()*,-./:;?@[\\]_{}') ASCII_PUNCT[ch.charCodeAt(0)] = 1;

const isAsciiAlnum = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
const isAsciiDigit = (c: number) => c >= 48 && c <= 57;
const isAsciiSpace = (c: number) => c === 32 || (c >= 9 && c <= 13);

let scratch = new Uint8Array(1024);

/**
 * The same key as the general path for pure-ASCII text (NFKC is the identity there), in one pass
 * without regular expressions or intermediate strings; null when the text has a non-ASCII character.
 */
function asciiDedupKey(text: string, lowercase: boolean): string | null {
  const n = text.length;
  if (scratch.length < n) scratch = new Uint8Array(n * 2);
  const out = scratch;
  let len = 0;
  let pendingSpace = false;
  let prev = -1;
  for (let i = 0; i < n; i++) {
    let c = text.charCodeAt(i);
    if (c >= 128) return null;
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
  return latin1.decode(out.subarray(0, len));
}

const latin1 = new TextDecoder('latin1');
