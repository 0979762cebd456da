import { LshIndex } from './lsh-index.ts';
import { type MinHasher, signatureSimilarity } from './minhash.ts';
import { wordNgramHashes } from './word-ngrams.ts';

/** What a task collided with: the reference row's label (`test.jsonl:12`, `index x: set/id`) and how. */
export interface Collision {
  method: 'exact' | 'ngram' | 'minhash';
  reference: string;
  /** exact: 1; ngram: share of the task's n-grams found in that reference row; minhash: estimated Jaccard. */
  score: number;
  /** ngram only: n-grams shared with that row, and the task's n-gram count. */
  shared?: number;
  total?: number;
}

export interface ReferenceSetOptions {
  exact: boolean;
  ngram: { n: number; threshold: number } | null;
  minhash: { hasher: MinHasher; bands: number; threshold: number } | null;
}

/**
 * The reference rows a task set is checked against, held as exact keys, word n-grams (each
 * n-gram → the reference rows holding it) and MinHash signatures in an LSH index. Labels are
 * kept per row so every collision names the row it hit; the first row wins among equals.
 */
export class ReferenceSet {
  private readonly labels: string[] = [];
  private readonly exactKeys = new Map<number, { check: number; row: number }>();
  private readonly ngramRows = new Map<number, number[]>();
  private readonly lsh: LshIndex | null;
  private signatures = new Uint32Array(0);
  private readonly sig: Uint32Array;
  private readonly keys: Int32Array;
  /** LSH document number → reference row (index entries without a signature have no document). */
  private readonly docRows: number[] = [];

  readonly options: ReferenceSetOptions;

  constructor(options: ReferenceSetOptions) {
    this.options = options;
    const m = options.minhash;
    this.lsh = m ? new LshIndex(m.bands, m.hasher.permutations / m.bands) : null;
    this.sig = new Uint32Array(m?.hasher.permutations ?? 0);
    this.keys = new Int32Array(m?.bands ?? 0);
  }

  get size(): number {
    return this.labels.length;
  }

  /** Add a reference row from its text (exact key hash given, so callers choose the normal form). */
  addText(label: string, text: string, exact: { key: number; check: number }): void {
    const row = this.labels.length;
    this.labels.push(label);
    if (this.options.exact && !this.exactKeys.has(exact.key))
      this.exactKeys.set(exact.key, { ...exact, row });
    if (this.options.ngram) {
      for (const g of wordNgramHashes(text, this.options.ngram.n)) {
        const rows = this.ngramRows.get(g);
        if (rows === undefined) this.ngramRows.set(g, [row]);
        else if (rows[rows.length - 1] !== row) rows.push(row);
      }
    }
    if (this.options.minhash) {
      this.options.minhash.hasher.signature(text, this.sig, 0);
      this.addSignature(row, this.sig);
    }
  }

  /** Add a row known only by its exact key and signature (a persisted index entry). */
  addEntry(label: string, exact: { key: number; check: number }, signature: ArrayLike<number>): void {
    const row = this.labels.length;
    this.labels.push(label);
    if (this.options.exact && !this.exactKeys.has(exact.key))
      this.exactKeys.set(exact.key, { ...exact, row });
    const k = this.sig.length;
    if (this.options.minhash && signature.length === k) this.addSignature(row, Uint32Array.from(signature));
  }

  private addSignature(row: number, sig: Uint32Array): void {
    const lsh = this.lsh!;
    const k = sig.length;
    const doc = lsh.insert(lsh.bandKeys(sig, 0, new Int32Array(lsh.bands)));
    if ((doc + 1) * k > this.signatures.length) {
      const grown = new Uint32Array(Math.max(1024 * k, this.signatures.length * 2));
      grown.set(this.signatures);
      this.signatures = grown;
    }
    this.signatures.set(sig, doc * k);
    this.docRows[doc] = row;
  }

  /** The first collision of a task's text, checked exact → n-gram → MinHash; null when clean. */
  match(text: string, exact: { key: number; check: number }): Collision | null {
    if (this.options.exact) {
      const hit = this.exactKeys.get(exact.key);
      if (hit !== undefined && hit.check === exact.check)
        return { method: 'exact', reference: this.labels[hit.row]!, score: 1 };
    }
    const ng = this.options.ngram;
    if (ng && this.ngramRows.size > 0) {
      const grams = wordNgramHashes(text, ng.n);
      if (grams.size > 0) {
        const perRow = new Map<number, number>();
        let found = 0;
        for (const g of grams) {
          const rows = this.ngramRows.get(g);
          if (rows === undefined) continue;
          found++;
          for (const r of rows) perRow.set(r, (perRow.get(r) ?? 0) + 1);
        }
        // The task's share of n-grams seen anywhere in the reference decides; the row sharing most is named.
        if (found / grams.size >= ng.threshold) {
          let best = -1;
          let bestCount = 0;
          for (const [r, c] of perRow)
            if (c > bestCount || (c === bestCount && r < best)) [best, bestCount] = [r, c];
          return {
            method: 'ngram',
            reference: this.labels[best]!,
            score: found / grams.size,
            shared: bestCount,
            total: grams.size,
          };
        }
      }
    }
    const mh = this.options.minhash;
    if (mh && this.lsh && this.lsh.count > 0) {
      const k = this.sig.length;
      mh.hasher.signature(text, this.sig, 0);
      const keys = this.lsh.bandKeys(this.sig, 0, this.keys);
      let best = -1;
      let bestSim = 0;
      this.lsh.candidates(keys, (doc) => {
        const sim = signatureSimilarity(this.sig, 0, this.signatures, doc * k, k);
        if (sim > bestSim || (sim === bestSim && doc < best)) [best, bestSim] = [doc, sim];
      });
      if (best >= 0 && bestSim >= mh.threshold)
        return { method: 'minhash', reference: this.labels[this.docRows[best]!]!, score: bestSim };
    }
    return null;
  }
}
