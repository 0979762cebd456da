/**
 * V8's JSON.parse accepts any nesting depth, but everything recursive downstream (hashing,
 * validation, JSON.stringify) overflows the stack on 100k-deep values. Readers reject such rows
 * up front. A text of depth d is at least 2d characters long, so short texts skip the scan.
 */
export const DEFAULT_MAX_DEPTH = 1000;

/** True when the (valid) JSON text nests arrays/objects deeper than `maxDepth`. */
export function jsonTooDeep(text: string, maxDepth: number): boolean {
  if (text.length <= 2 * maxDepth) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 91 /* [ */ || c === 123 /* { */) {
      if (++depth > maxDepth) return true;
    } else if (c === 93 /* ] */ || c === 125 /* } */) depth--;
  }
  return false;
}

/** `typeof` as a reader reports it: arrays and null named as such. */
export function jsonKind(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  const t = typeof value;
  return t === 'object' ? 'an object' : `a ${t}`;
}
