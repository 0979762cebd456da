import type { Rng } from './rng.ts';
import type { SumTree } from './sum-tree.ts';

/**
 * `k` distinct indices of `[0, size)`, drawn one after another, each with probability ∝ its weight
 * in `tree` among the indices not drawn yet: successive sampling without replacement, the same
 * distribution as Gumbel-top-k over the weights, in O(k log n) instead of a pass over every index.
 * A draw that lands on an index already drawn is drawn again, which leaves every accepted draw
 * exactly the conditional one. Where draws keep landing on taken indices (a few hold nearly all the
 * weight), the rest are drawn by a scan; once no weight is left, uniformly among the rest.
 * The buffer's `drawWithoutReplacement` (buffer/samplers/select.ts) does the same from a plain weight
 * array, building a prefix table of all n weights on every call; this one draws from a tree the
 * caller keeps between calls (a selector's weights change far less often than it draws).
 */
export function drawDistinctWeighted(rng: Rng, tree: SumTree, size: number, k: number): number[] {
  const want = Math.min(k, size);
  const out: number[] = [];
  const taken = new Set<number>();
  let misses = 0;
  while (out.length < want && misses < 32 * (want + 1)) {
    const i = tree.find(rng.float() * tree.total);
    if (i < 0 || i >= size) break;
    if (taken.has(i)) {
      misses++;
      continue;
    }
    taken.add(i);
    out.push(i);
  }
  while (out.length < want) {
    const i = scanDraw(rng, tree, size, taken);
    taken.add(i);
    out.push(i);
  }
  return out;
}

/** One draw ∝ weight among the indices not taken (uniform when none of them has weight). */
function scanDraw(rng: Rng, tree: SumTree, size: number, taken: Set<number>): number {
  let total = 0;
  for (let i = 0; i < size; i++) if (!taken.has(i)) total += tree.get(i);
  if (total > 0) {
    let u = rng.float() * total;
    let last = -1;
    for (let i = 0; i < size; i++) {
      const w = taken.has(i) ? 0 : tree.get(i);
      if (w <= 0) continue;
      last = i;
      u -= w;
      if (u < 0) return i;
    }
    return last; // rounding at the end of the scan
  }
  let r = rng.int(size - taken.size);
  for (let i = 0; i < size; i++) if (!taken.has(i) && r-- === 0) return i;
  throw new Error('drawDistinctWeighted: no index left');
}
