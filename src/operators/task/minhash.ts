import { Rng } from '../../core/rng.ts';
import { createSimdSigner, type SimdSigner } from './minhash-simd.ts';

/**
 * MinHash signatures over character or word n-gram shingles, built for speed:
 * - the text is lower-cased and its whitespace collapsed while it is scanned (no per-shingle
 *   strings): each character n-gram is a polynomial rolling hash over char codes (mod 2^32,
 *   O(1) per shingle), each word is FNV-1a over its char codes and word n-grams combine those;
 * - every shingle hash goes through the murmur3 finaliser so its bits are well mixed;
 * - permutation p is h_p(x) = (a_p·x + b_p) mod 2^32 with a_p odd (a bijection on uint32),
 *   computed with Math.imul; the signature keeps the minimum per permutation in a Uint32Array.
 *   (The classic (a·x + b) mod (2^31 − 1) needs 62-bit products, which doubles cannot hold.)
 */
export interface MinHashOptions {
  tokenizer: 'char' | 'word';
  /** Shingle length: characters for `char`, words for `word`. */
  ngram: number;
  permutations: number;
  seed: number;
  lowercase: boolean;
}

/** murmur3's 32-bit finaliser: a bijection that spreads every input bit over the output. */
export function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

const BASE = 0x01000193; // odd, so the rolling hash multiplier is invertible mod 2^32

function isSpace(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13) || c === 0xa0 || c === 0x3000 || (c >= 0x2000 && c <= 0x200a);
}

/** Letters and digits for the word tokenizer: ASCII alphanumerics and anything non-ASCII that is not a space. */
function isWordChar(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 128 && !isSpace(c));
}

export class MinHasher {
  readonly permutations: number;
  readonly options: Readonly<MinHashOptions>;
  private readonly a: Uint32Array;
  private readonly b: Uint32Array;
  private shingles = new Uint32Array(1024);
  private codes = new Uint16Array(1024);
  private words = new Uint32Array(256);
  /** The same loop in WebAssembly SIMD (~5× faster), where the runtime has it. */
  private readonly simd: SimdSigner | null;

  constructor(options: MinHashOptions) {
    if (!Number.isInteger(options.ngram) || options.ngram < 1)
      throw new RangeError('MinHasher: ngram must be ≥ 1');
    this.options = { ...options };
    this.permutations = options.permutations;
    const rng = new Rng(`minhash:${options.seed}`);
    this.a = new Uint32Array(options.permutations);
    this.b = new Uint32Array(options.permutations);
    for (let p = 0; p < options.permutations; p++) {
      this.a[p] = (rng.nextUint32() | 1) >>> 0;
      this.b[p] = rng.nextUint32();
    }
    this.simd = createSimdSigner(this.a, this.b);
  }

  /** The distinct-or-not shingle hashes of `text` (a view into a reused buffer: copy to keep). */
  shingleHashes(text: string): Uint32Array {
    const s = this.options.lowercase ? text.toLowerCase() : text;
    return this.options.tokenizer === 'char' ? this.charShingles(s) : this.wordShingles(s);
  }

  private charShingles(s: string): Uint32Array {
    if (this.codes.length < s.length) this.codes = new Uint16Array(s.length * 2);
    const codes = this.codes;
    // Collapse whitespace runs to one space and trim, while copying char codes.
    let len = 0;
    let pendingSpace = false;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (isSpace(c)) pendingSpace = len > 0;
      else {
        if (pendingSpace) codes[len++] = 32;
        pendingSpace = false;
        codes[len++] = c;
      }
    }
    const n = this.options.ngram;
    const count = len < n ? 1 : len - n + 1;
    if (this.shingles.length < count) this.shingles = new Uint32Array(count * 2);
    const out = this.shingles;
    if (len < n) {
      // Shorter than one shingle: the whole text is the only shingle.
      let h = 0;
      for (let i = 0; i < len; i++) h = (Math.imul(h, BASE) + codes[i]!) | 0;
      out[0] = fmix32(h ^ len);
      return out.subarray(0, 1);
    }
    // BASE^(n-1) mod 2^32, to take the outgoing character out of the rolling hash.
    let top = 1;
    for (let i = 1; i < n; i++) top = Math.imul(top, BASE);
    let h = 0;
    for (let i = 0; i < n; i++) h = (Math.imul(h, BASE) + codes[i]!) | 0;
    out[0] = fmix32(h);
    for (let i = n; i < len; i++) {
      h = (Math.imul(h - Math.imul(codes[i - n]!, top), BASE) + codes[i]!) | 0;
      out[i - n + 1] = fmix32(h);
    }
    return out.subarray(0, count);
  }

  private wordShingles(s: string): Uint32Array {
    let nw = 0;
    let h = 0x811c9dc5;
    let inWord = false;
    for (let i = 0; i <= s.length; i++) {
      const c = i < s.length ? s.charCodeAt(i) : 32;
      if (isWordChar(c)) {
        if (!inWord) h = 0x811c9dc5;
        inWord = true;
        h = Math.imul(h ^ c, 0x01000193);
      } else if (inWord) {
        inWord = false;
        if (nw === this.words.length) {
          const grown = new Uint32Array(nw * 2);
          grown.set(this.words);
          this.words = grown;
        }
        this.words[nw++] = fmix32(h);
      }
    }
    const n = this.options.ngram;
    const count = nw < n ? 1 : nw - n + 1;
    if (this.shingles.length < count) this.shingles = new Uint32Array(count * 2);
    const out = this.shingles;
    const words = this.words;
    const span = Math.min(n, nw);
    for (let i = 0; i < count; i++) {
      let g = span;
      for (let j = 0; j < span; j++) g = fmix32(Math.imul(g, 0x9e3779b1) ^ words[i + j]!);
      out[i] = g;
    }
    return out.subarray(0, count);
  }

  /** Write the signature of `text` into `out[offset … offset + permutations)`. */
  signature(text: string, out: Uint32Array, offset = 0): void {
    this.signatureOfShingles(this.shingleHashes(text), out, offset);
  }

  signatureOfShingles(shingles: Uint32Array, out: Uint32Array, offset = 0): void {
    if (this.simd) {
      this.simd.sign(shingles, out, offset);
      return;
    }
    this.signatureOfShinglesJs(shingles, out, offset);
  }

  /** The JavaScript loop (also the reference the SIMD loop is tested against). */
  signatureOfShinglesJs(shingles: Uint32Array, out: Uint32Array, offset = 0): void {
    // Comparisons run on int32 values u ^ 0x80000000 (same order as the uint32 u), so V8 keeps
    // everything in 32-bit registers; four permutations share one pass over the shingles.
    const a = this.a;
    const b = this.b;
    const ns = shingles.length;
    const k = this.permutations;
    const FLIP = 0x80000000 | 0;
    let p = 0;
    for (; p + 4 <= k; p += 4) {
      const a0 = a[p]! | 0;
      const a1 = a[p + 1]! | 0;
      const a2 = a[p + 2]! | 0;
      const a3 = a[p + 3]! | 0;
      const b0 = (b[p]! ^ FLIP) | 0;
      const b1 = (b[p + 1]! ^ FLIP) | 0;
      const b2 = (b[p + 2]! ^ FLIP) | 0;
      const b3 = (b[p + 3]! ^ FLIP) | 0;
      let m0 = 0x7fffffff;
      let m1 = 0x7fffffff;
      let m2 = 0x7fffffff;
      let m3 = 0x7fffffff;
      for (let j = 0; j < ns; j++) {
        const x = shingles[j]! | 0;
        let v = (Math.imul(a0, x) + b0) | 0;
        if (v < m0) m0 = v;
        v = (Math.imul(a1, x) + b1) | 0;
        if (v < m1) m1 = v;
        v = (Math.imul(a2, x) + b2) | 0;
        if (v < m2) m2 = v;
        v = (Math.imul(a3, x) + b3) | 0;
        if (v < m3) m3 = v;
      }
      out[offset + p] = m0 ^ FLIP;
      out[offset + p + 1] = m1 ^ FLIP;
      out[offset + p + 2] = m2 ^ FLIP;
      out[offset + p + 3] = m3 ^ FLIP;
    }
    for (; p < k; p++) {
      const ap = a[p]! | 0;
      const bp = (b[p]! ^ FLIP) | 0;
      let m = 0x7fffffff;
      for (let j = 0; j < ns; j++) {
        const v = (Math.imul(ap, shingles[j]! | 0) + bp) | 0;
        if (v < m) m = v;
      }
      out[offset + p] = m ^ FLIP;
    }
  }
}

/** Estimated Jaccard similarity: the share of permutations whose minima agree. */
export function signatureSimilarity(
  x: Uint32Array,
  xOffset: number,
  y: Uint32Array,
  yOffset: number,
  length: number,
): number {
  let same = 0;
  for (let p = 0; p < length; p++) if (x[xOffset + p] === y[yOffset + p]) same++;
  return same / length;
}
