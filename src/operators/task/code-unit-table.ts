/**
 * A per-code-unit table of a character class over the Basic Multilingual Plane, built once (on
 * first use) from the class's own predicate, so a scan can read a class with one array load
 * instead of a regular expression per character — and agrees with the predicate by construction.
 * Lone surrogates get the predicate's answer for the lone unit; a surrogate pair (an astral code
 * point) is for the caller to classify with the predicate itself.
 */
export function lazyCodeUnitTable(classOf: (unit: string, code: number) => number): () => Uint8Array {
  let table: Uint8Array | null = null;
  return () => {
    if (table === null) {
      table = new Uint8Array(0x10000);
      for (let c = 0; c < 0x10000; c++) table[c] = classOf(String.fromCharCode(c), c);
    }
    return table;
  };
}

/** Whether a surrogate pair starts at `i` of `text`. */
export function pairAt(text: string, i: number): boolean {
  const c = text.charCodeAt(i);
  if (c < 0xd800 || c > 0xdbff || i + 1 >= text.length) return false;
  const d = text.charCodeAt(i + 1);
  return d >= 0xdc00 && d <= 0xdfff;
}
