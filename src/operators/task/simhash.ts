import { fmix32 } from './minhash.ts';
import { wordTokens } from './text-units.ts';

/** A 64-bit SimHash as two unsigned 32-bit halves. */
export interface SimHash {
  hi: number;
  lo: number;
}

/** 32-bit FNV-1a over UTF-16 code units with a seed, finished by murmur3's avalanche step. */
function hash32(s: string, seed: number): number {
  let h = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return fmix32(h);
}

export interface SimHashOptions {
  /** `word`: text-units.ts words (CJK-aware); `char`: code points; `space`: runs between U+0020 spaces (Data-Juicer's `space`: newlines and tabs do not split). */
  tokenizer: 'word' | 'char' | 'space';
  /** Shingle length in tokens. */
  window: number;
  lowercase: boolean;
  /**
   * A text of fewer tokens than `window`: `whole` (default) makes it one shingle; `none` gives it no
   * shingle, so its hash is 0 and all such texts are duplicates of each other (Data-Juicer's rule).
   */
  shortText?: 'whole' | 'none';
}

/** The shingles of a text (for inspection): every run of `window` tokens, or all tokens when fewer. */
export function shingles(text: string, o: SimHashOptions): string[] {
  const tokens = tokensOf(text, o);
  const sep = o.tokenizer === 'char' ? '' : ' ';
  if (tokens.length === 0) return [];
  if (tokens.length < o.window && o.shortText === 'none') return [];
  if (tokens.length <= o.window) return [tokens.join(sep)];
  const out: string[] = [];
  for (let i = 0; i + o.window <= tokens.length; i++) out.push(tokens.slice(i, i + o.window).join(sep));
  return out;
}

function tokensOf(text: string, o: SimHashOptions): string[] {
  const t = o.lowercase ? text.toLowerCase() : text;
  if (o.tokenizer === 'space') return t.split(' ').filter((w) => w !== '');
  return o.tokenizer === 'word' ? wordTokens(t) : Array.from(t);
}

/**
 * Charikar's SimHash: each bit is the majority vote of that bit over the shingles' 64-bit hashes.
 * A shingle's hash combines its tokens' hashes in order (no shingle strings are built), so the
 * shingles are exactly those `shingles()` lists.
 */
export function simhash(text: string, o: SimHashOptions): SimHash {
  const tokens = tokensOf(text, o);
  const n = tokens.length;
  const votes = new Int32Array(64);
  if (n > 0 && (n >= o.window || o.shortText !== 'none')) {
    const a = new Uint32Array(n);
    const b = new Uint32Array(n);
    for (let i = 0; i < n; i++) {
      a[i] = hash32(tokens[i]!, 0x9e3779b9);
      b[i] = hash32(tokens[i]!, 0x7f4a7c15);
    }
    const width = Math.min(o.window, n);
    for (let i = 0; i + width <= n; i++) {
      let hi = 0x811c9dc5;
      let lo = 0x01000193;
      for (let j = i; j < i + width; j++) {
        hi = fmix32(Math.imul(hi ^ a[j]!, 0x01000193) + j - i);
        lo = fmix32(Math.imul(lo ^ b[j]!, 0x85ebca6b) + j - i);
      }
      for (let bit = 0; bit < 32; bit++) {
        votes[bit] += ((hi >>> bit) & 1) * 2 - 1;
        votes[32 + bit] += ((lo >>> bit) & 1) * 2 - 1;
      }
    }
  }
  let hi = 0;
  let lo = 0;
  for (let bit = 0; bit < 32; bit++) {
    if (votes[bit]! > 0) hi |= 1 << bit;
    if (votes[32 + bit]! > 0) lo |= 1 << bit;
  }
  return { hi: hi >>> 0, lo: lo >>> 0 };
}

function popcount32(x: number): number {
  let v = x - ((x >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24) & 0xff;
}

export function hammingDistance(a: SimHash, b: SimHash): number {
  return popcount32((a.hi ^ b.hi) >>> 0) + popcount32((a.lo ^ b.lo) >>> 0);
}

/** Bits [from, to) of the 64 (bit 0 = lowest bit of `hi`), as a number (at most 32 bits wide). */
function bits(h: SimHash, from: number, to: number): number {
  let v = 0;
  for (let b = to - 1; b >= from; b--) {
    const bit = b < 32 ? (h.hi >>> b) & 1 : (h.lo >>> (b - 32)) & 1;
    v = v * 2 + bit;
  }
  return v;
}

/**
 * Finds a stored SimHash within a Hamming distance. The 64 bits are cut into `blocks` pieces; two
 * hashes that differ in at most `blocks − 1` bits agree exactly on at least one piece
 * (pigeonhole), so only hashes sharing a piece are compared.
 */
export class SimHashIndex {
  private readonly tables: Array<Map<number, number[]>>;
  private readonly edges: number[];
  private readonly hashes: SimHash[] = [];

  constructor(blocks: number) {
    this.tables = Array.from({ length: blocks }, () => new Map());
    this.edges = Array.from({ length: blocks + 1 }, (_, i) => Math.floor((64 * i) / blocks));
  }

  /** The earliest stored hash at the smallest distance ≤ maxDistance, or null. */
  nearest(h: SimHash, maxDistance: number): { doc: number; distance: number } | null {
    let best: { doc: number; distance: number } | null = null;
    for (let b = 0; b < this.tables.length; b++) {
      const docs = this.tables[b]!.get(bits(h, this.edges[b]!, this.edges[b + 1]!));
      if (docs === undefined) continue;
      for (const doc of docs) {
        const d = hammingDistance(h, this.hashes[doc]!);
        if (
          d <= maxDistance &&
          (best === null || d < best.distance || (d === best.distance && doc < best.doc))
        )
          best = { doc, distance: d };
      }
    }
    return best;
  }

  insert(h: SimHash): number {
    const doc = this.hashes.length;
    this.hashes.push(h);
    for (let b = 0; b < this.tables.length; b++) {
      const key = bits(h, this.edges[b]!, this.edges[b + 1]!);
      const list = this.tables[b]!.get(key);
      if (list) list.push(doc);
      else this.tables[b]!.set(key, [doc]);
    }
    return doc;
  }
}
