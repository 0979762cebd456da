/**
 * The k smallest (key, index) pairs of a stream, in O(N log k) worst case and ~O(N) typical:
 * a bounded max-heap whose root is the worst kept pair, so most candidates are rejected by a
 * single comparison. Ties on the key go to the smaller tie value (the index unless given), so
 * results never depend on the order of iteration. NaN keys count as +Infinity.
 */
export class TopK {
  readonly capacity: number;
  private readonly keys: Float64Array;
  private readonly idx: Int32Array;
  private readonly ties: Float64Array;
  private count = 0;

  constructor(capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 0)
      throw new RangeError(`TopK: capacity must be a non-negative integer, got ${capacity}`);
    this.capacity = capacity;
    this.keys = new Float64Array(Math.max(1, capacity));
    this.idx = new Int32Array(Math.max(1, capacity));
    this.ties = new Float64Array(Math.max(1, capacity));
  }

  get size(): number {
    return this.count;
  }

  /** The worst kept key (+Infinity until the heap is full): anything strictly above it is rejected. */
  get bound(): number {
    return this.count < this.capacity ? Number.POSITIVE_INFINITY : this.keys[0]!;
  }

  clear(): void {
    this.count = 0;
  }

  /** Offer a candidate; equal keys are ordered by `tie` (default: the index), smaller first. */
  offer(key: number, index: number, tie: number = index): void {
    if (Number.isNaN(key)) key = Number.POSITIVE_INFINITY;
    if (this.capacity === 0) return;
    const keys = this.keys;
    const ties = this.ties;
    const idx = this.idx;
    if (this.count < this.capacity) {
      let i = this.count++;
      // sift up
      while (i > 0) {
        const p = (i - 1) >> 1;
        if (!(key > keys[p]! || (key === keys[p]! && tie > ties[p]!))) break;
        keys[i] = keys[p]!;
        ties[i] = ties[p]!;
        idx[i] = idx[p]!;
        i = p;
      }
      keys[i] = key;
      ties[i] = tie;
      idx[i] = index;
      return;
    }
    if (!(keys[0]! > key || (keys[0]! === key && ties[0]! > tie))) return;
    // replace the root and sift down
    let i = 0;
    const n = this.count;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      let c = l;
      if (r < n && (keys[r]! > keys[l]! || (keys[r]! === keys[l]! && ties[r]! > ties[l]!))) c = r;
      if (!(keys[c]! > key || (keys[c]! === key && ties[c]! > tie))) break;
      keys[i] = keys[c]!;
      ties[i] = ties[c]!;
      idx[i] = idx[c]!;
      i = c;
    }
    keys[i] = key;
    ties[i] = tie;
    idx[i] = index;
  }

  /** Kept indices, best (smallest key, then smallest index) first. */
  sorted(): Int32Array {
    const order = Array.from({ length: this.count }, (_, i) => i);
    order.sort((a, b) => {
      const ka = this.keys[a]!;
      const kb = this.keys[b]!;
      return ka < kb ? -1 : ka > kb ? 1 : this.ties[a]! - this.ties[b]!;
    });
    const out = new Int32Array(this.count);
    for (let i = 0; i < order.length; i++) out[i] = this.idx[order[i]!]!;
    return out;
  }

  /** Kept indices in ascending index order. */
  indices(): Int32Array {
    const out = this.idx.slice(0, this.count);
    out.sort();
    return out;
  }
}

/** Indices of the k smallest keys, best first (ties by index). */
export function smallestK(keys: Float64Array, k: number): Int32Array {
  const top = new TopK(Math.min(k, keys.length));
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    if (key <= top.bound) top.offer(key, i);
    else if (Number.isNaN(key) && top.size < top.capacity) top.offer(key, i);
  }
  return top.sorted();
}
