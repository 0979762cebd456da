/**
 * Pulling a checkable final answer out of a worked solution. Each extractor returns the answer
 * text, or null when the solution has none in that format.
 */

export type ExtractMode = 'gsm8k' | 'boxed' | 'last_number';

/** GSM8K: the text after the last `####` on its line, trimmed, thousands commas removed ("#### 1,234" → "1234"). */
export function extractGsm8kAnswer(text: string): string | null {
  const at = text.lastIndexOf('####');
  if (at < 0) return null;
  const rest = text.slice(at + 4);
  const nl = rest.indexOf('\n');
  const value = (nl < 0 ? rest : rest.slice(0, nl)).trim().replace(/,/g, '');
  return value.length > 0 ? value : null;
}

/**
 * LaTeX: the contents of the last `\boxed{…}` (or `\fbox{…}`) with balanced braces, so
 * `\boxed{\frac{1}{2}}` gives `\frac{1}{2}`; also the brace-less `\boxed 5`. An unclosed last box gives null.
 */
export function extractBoxedAnswer(text: string): string | null {
  const boxed = text.lastIndexOf('\\boxed');
  const fbox = text.lastIndexOf('\\fbox');
  const at = Math.max(boxed, fbox);
  if (at < 0) return null;
  let i = at + (at === boxed ? 6 : 5);
  if (text[i] === ' ') {
    // `\boxed 5`: one token, up to whitespace or the closing `$`.
    const m = /^ +([^\s$]+)/.exec(text.slice(i));
    return m ? m[1]! : null;
  }
  if (text[i] !== '{') return null;
  let depth = 0;
  const start = i + 1;
  for (; i < text.length; i++) {
    const c = text[i];
    if (c === '\\') {
      i++; // skip the escaped character (`\{`, `\}` are literal braces)
      continue;
    }
    if (c === '{') depth++;
    else if (c === '}') {
      depth--;
      if (depth === 0) {
        const value = text.slice(start, i).trim();
        return value.length > 0 ? value : null;
      }
    }
  }
  return null;
}

const NUMBER = /-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:\/\d+)?|-?\.\d+/g;

/**
 * The last integer, decimal or fraction (`3/4`) in the text, thousands commas removed. A leading
 * `-` is kept when it is a sign, not when it follows a letter, digit or `)` (then it is a minus).
 */
export function extractLastNumber(text: string): string | null {
  let last: RegExpExecArray | null = null;
  for (const m of text.matchAll(NUMBER)) last = m;
  if (last === null) return null;
  let value = last[0];
  if (value.startsWith('-') && last.index > 0 && /[\p{L}\p{N})\]]/u.test(text[last.index - 1]!))
    value = value.slice(1);
  return value.replace(/,/g, '');
}

const EXTRACTORS: Record<ExtractMode, (text: string) => string | null> = {
  gsm8k: extractGsm8kAnswer,
  boxed: extractBoxedAnswer,
  last_number: extractLastNumber,
};

/** `auto` tries gsm8k, then boxed, then last_number; the result says which one matched. */
export function extractFinalAnswer(
  text: string,
  mode: ExtractMode | 'auto',
): { value: string; mode: ExtractMode } | null {
  const order: ExtractMode[] = mode === 'auto' ? ['gsm8k', 'boxed', 'last_number'] : [mode];
  for (const m of order) {
    const value = EXTRACTORS[m](text);
    if (value !== null) return { value, mode: m };
  }
  return null;
}
