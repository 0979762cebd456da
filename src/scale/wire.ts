/**
 * JSON for values that cross the queue. Plain JSON turns NaN and ±Infinity into null, and a NaN
 * reward must reach the invalid-reward filter as NaN, so non-finite numbers travel tagged.
 */
const TAG = '$winnow-number';

export function encodeWire(value: unknown): string {
  return JSON.stringify(value, (_key, v) =>
    typeof v === 'number' && !Number.isFinite(v) ? { [TAG]: String(v) } : v,
  );
}

export function decodeWire(text: string): unknown {
  return JSON.parse(text, (_key, v) => {
    if (v && typeof v === 'object' && !Array.isArray(v) && TAG in v && Object.keys(v).length === 1)
      return Number((v as Record<string, string>)[TAG]);
    return v;
  });
}
