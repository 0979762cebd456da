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
