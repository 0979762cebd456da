import { fmix32 } from './minhash.ts';

/**
 * Open-addressing hash table from a 32-bit band key to the newest document in that bucket
 * (linear probing, grown at half load). Typed arrays instead of a Map: no boxed keys, no
 * per-entry objects, and no Map size limit.
 */
class BucketTable {
  private keys: Int32Array;
  private heads: Int32Array;
  private mask: number;
  private used = 0;

  constructor(capacity = 1024) {
    this.keys = new Int32Array(capacity);
    this.heads = new Int32Array(capacity).fill(-1);
    this.mask = capacity - 1;
  }

  /** The newest document under `key`, or -1. */
  get(key: number): number {
    const keys = this.keys;
    const heads = this.heads;
    let i = key & this.mask;
    for (;;) {
      const head = heads[i]!;
      if (head < 0) return -1;
      if (keys[i] === key) return head;
      i = (i + 1) & this.mask;
    }
  }

  /** Make `doc` the newest document under `key`; returns the previous newest, or -1. */
  put(key: number, doc: number): number {
    if ((this.used + 1) * 2 > this.keys.length) this.grow();
    let i = key & this.mask;
    for (;;) {
      const head = this.heads[i]!;
      if (head < 0) {
        this.keys[i] = key;
        this.heads[i] = doc;
        this.used++;
        return -1;
      }
      if (this.keys[i] === key) {
        this.heads[i] = doc;
        return head;
      }
      i = (i + 1) & this.mask;
    }
  }

  private grow(): void {
    const oldKeys = this.keys;
    const oldHeads = this.heads;
    const capacity = oldKeys.length * 2;
    this.keys = new Int32Array(capacity);
    this.heads = new Int32Array(capacity).fill(-1);
    this.mask = capacity - 1;
    for (let j = 0; j < oldKeys.length; j++) {
      if (oldHeads[j]! < 0) continue;
      let i = oldKeys[j]! & this.mask;
      while (this.heads[i]! >= 0) i = (i + 1) & this.mask;
      this.keys[i] = oldKeys[j]!;
      this.heads[i] = oldHeads[j]!;
    }
  }
}

/**
 * Locality-sensitive hashing over MinHash signatures: the signature is cut into `bands` bands of
 * `rows` values; two documents become candidates when any band is identical. A pair with Jaccard
 * similarity s is a candidate with probability 1 − (1 − s^rows)^bands.
 *
 * A band is reduced to a 32-bit key. Two different bands can share a key (about n²/2³³ such
 * pairs per band for n documents); that only adds a candidate, which the caller verifies by
 * signature similarity, so it costs time, never correctness. Older documents in a bucket are
 * chained through an Int32Array, so a bucket costs no array.
 */
export class LshIndex {
  readonly bands: number;
  readonly rows: number;
  private readonly tables: BucketTable[];
  /** next[doc * bands + band]: the previous document in the same bucket, or -1. */
  private next: Int32Array;
  /** Per-document stamp so a candidate found in several bands is reported once per query. */
  private stamp: Int32Array;
  private query = 0;
  private size = 0;

  constructor(bands: number, rows: number) {
    this.bands = bands;
    this.rows = rows;
    this.tables = Array.from({ length: bands }, () => new BucketTable());
    this.next = new Int32Array(1024 * bands);
    this.stamp = new Int32Array(1024);
  }

  get count(): number {
    return this.size;
  }

  /** The band keys of a signature, computed once and passed to `candidates` and `insert`. */
  bandKeys(sig: Uint32Array, offset: number, out: Int32Array = new Int32Array(this.bands)): Int32Array {
    const rows = this.rows;
    for (let band = 0; band < this.bands; band++) {
      let h = Math.imul(band + 1, 0x9e3779b1);
      const start = offset + band * rows;
      for (let r = 0; r < rows; r++) {
        h = Math.imul(h ^ sig[start + r]!, 0xcc9e2d51);
        h = (h << 15) | (h >>> 17);
        h = (Math.imul(h, 5) + 0xe6546b64) | 0;
      }
      out[band] = fmix32(h) | 0;
    }
    return out;
  }

  /** Call `visit` once for each stored document sharing a band key with `keys`. */
  candidates(keys: Int32Array, visit: (doc: number) => void): void {
    this.query++;
    if (this.query === 0x7fffffff) {
      this.stamp.fill(0);
      this.query = 1;
    }
    const q = this.query;
    const bands = this.bands;
    for (let band = 0; band < bands; band++) {
      let doc = this.tables[band]!.get(keys[band]!);
      while (doc >= 0) {
        if (this.stamp[doc] !== q) {
          this.stamp[doc] = q;
          visit(doc);
        }
        doc = this.next[doc * bands + band]!;
      }
    }
  }

  /** Store a document by its band keys; returns its document number (0, 1, 2, …). */
  insert(keys: Int32Array): number {
    const doc = this.size++;
    if ((doc + 1) * this.bands > this.next.length) {
      const grown = new Int32Array(this.next.length * 2);
      grown.set(this.next);
      this.next = grown;
      const stamps = new Int32Array(this.stamp.length * 2);
      stamps.set(this.stamp);
      this.stamp = stamps;
    }
    for (let band = 0; band < this.bands; band++)
      this.next[doc * this.bands + band] = this.tables[band]!.put(keys[band]!, doc);
    return doc;
  }
}
