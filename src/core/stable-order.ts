// Indices ordered by a numeric key, ties by their order in the input: a counting sort over the
// key's distinct values (found by the engine's native sort of a Float64Array), so no comparator
// runs per comparison. Several times faster than `Int32Array.sort` with a comparator on a million
// keys, most of all where keys repeat (pass rates on a grid of 1/16ths).

/** `ids` reordered by their keys ascending (`keys[j]` belongs to `ids[j]`; finite), ties kept in input order. */
export function orderByKey(ids: Int32Array, keys: Float64Array): Int32Array {
  const m = ids.length;
  const vals = keys;
  const sorted = vals.slice().sort();
  // Distinct values, ascending (−0 and 0 are one value).
  let u = 0;
  for (let j = 0; j < m; j++) if (u === 0 || sorted[j] !== sorted[u - 1]) sorted[u++] = sorted[j]!;
  const distinct = sorted.subarray(0, u);
  const rank = new Int32Array(m);
  const start = new Int32Array(u + 1);
  for (let j = 0; j < m; j++) {
    let lo = 0;
    let hi = u - 1;
    const v = vals[j]!;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (distinct[mid]! < v) lo = mid + 1;
      else hi = mid;
    }
    rank[j] = lo;
    start[lo + 1]!++;
  }
  for (let r = 0; r < u; r++) start[r + 1]! += start[r]!;
  const out = new Int32Array(m);
  for (let j = 0; j < m; j++) out[start[rank[j]!]!++] = ids[j]!;
  return out;
}
