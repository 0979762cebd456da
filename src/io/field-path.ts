/** Marks a field that is absent from a row (as opposed to present and null). */
export const MISSING: unique symbol = Symbol('missing');

export type FieldGetter = (fields: Record<string, unknown>) => unknown;

/**
 * A getter for a column name or dotted path (`stats.weak`, `choices.0`). An exact column of that
 * name wins over the path reading, so flattened names such as `a.b` still work. Only own
 * properties count (a column named `constructor` is not Object's). Absent → MISSING.
 */
export function compilePath(path: string): FieldGetter {
  const segments = path.split('.');
  if (segments.length === 1) return (f) => (Object.hasOwn(f, path) ? f[path] : MISSING);
  return (f) => {
    if (Object.hasOwn(f, path)) return f[path];
    let cur: unknown = f;
    for (const seg of segments) {
      if (cur === null || typeof cur !== 'object' || !Object.hasOwn(cur, seg)) return MISSING;
      cur = (cur as Record<string, unknown>)[seg];
    }
    return cur;
  };
}

/** "the row has: a, b, c" — what a user needs to fix a misspelt column name. */
export function columnsOf(fields: Record<string, unknown>): string {
  const keys = Object.keys(fields);
  const shown = keys.slice(0, 20).map((k) => `'${k}'`);
  if (keys.length > 20) shown.push(`… ${keys.length - 20} more`);
  return keys.length === 0 ? 'the row has no columns' : `the row has: ${shown.join(', ')}`;
}

/** A per-row mapping problem; becomes the row's rejection reason. */
export class RowMappingError extends Error {
  override name = 'RowMappingError';
}
