/**
 * `a \pm b` is two answers, `a + b` and `a - b` (`\mp`: `a - b` then `a + b`). One sign per
 * answer part is unambiguous; two (`1 \pm 2 \pm 3`) are not — do the signs go together or
 * independently? — so the caller refuses such a part rather than guess.
 */
const PLUS_MINUS = /\\(pm|mp)(?![a-zA-Z])/g;

export type PlusMinus = null | { variants: [string, string] } | { ambiguous: number };

/** The two readings of a part holding one `±`/`∓`; null when it has none. */
export function plusMinusVariants(text: string): PlusMinus {
  if (!text.includes('\\pm') && !text.includes('\\mp')) return null;
  const signs = [...text.matchAll(PLUS_MINUS)];
  if (signs.length === 0) return null;
  if (signs.length > 1) return { ambiguous: signs.length };
  const first = signs[0]![1] === 'pm' ? '+' : '-';
  const second = first === '+' ? '-' : '+';
  return { variants: [text.replace(PLUS_MINUS, first), text.replace(PLUS_MINUS, second)] };
}
