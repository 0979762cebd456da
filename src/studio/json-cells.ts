/**
 * Arrow values as JSON: bigints become numbers, vectors and typed arrays become plain arrays, rows
 * become objects. Strings longer than `maxString` are cut (page views; detail views pass Infinity).
 */
export function jsonCell(value: unknown, maxString = Number.POSITIVE_INFINITY): unknown {
  if (value === null || value === undefined) return null;
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'string') return value.length > maxString ? `${value.slice(0, maxString)}…` : value;
  if (typeof value === 'number' || typeof value === 'boolean') return value;
  if (ArrayBuffer.isView(value))
    return Array.from(value as unknown as ArrayLike<number | bigint>, (v) => jsonCell(v));
  if (Array.isArray(value)) return value.map((v) => jsonCell(v, maxString));
  if (value instanceof Date) return value.getTime();
  // Arrow rows and vectors: toJSON first, so a map row keeps its keys ({difficulty: 0.5}), not just values.
  const maybe = value as { toArray?: () => unknown; toJSON?: () => unknown };
  if (typeof maybe.toJSON === 'function') return jsonCell(maybe.toJSON(), maxString);
  if (typeof maybe.toArray === 'function') return jsonCell(maybe.toArray(), maxString);
  if (typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, jsonCell(v, maxString)]));
  return String(value);
}

/** Rows of an Arrow-like table as plain JSON objects. */
export function jsonRows(
  table: { toArray(): Array<{ toJSON(): Record<string, unknown> }> },
  maxString?: number,
): Record<string, unknown>[] {
  return table.toArray().map((r) => jsonCell(r.toJSON(), maxString) as Record<string, unknown>);
}
