/**
 * A small, fast, seeded pseudo-random generator (sfc32) whose whole state is four uint32s,
 * so it can be checkpointed and resumed exactly. Every random choice in Winnow goes through one.
 */

export type RngState = readonly [number, number, number, number];

/** Mix a string or number into a 32-bit seed (FNV-1a + murmur finaliser). */
export function hashSeed(...parts: Array<string | number>): number {
  let h = 0x811c9dc5;
  for (const part of parts) {
    const s = typeof part === 'number' ? `n${part}` : `s${part}`;
    for (let i = 0; i < s.length; i++) {
      h ^= s.charCodeAt(i);
      h = Math.imul(h, 0x01000193);
    }
    h ^= 0xff;
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number | string = 0) {
    const s = typeof seed === 'number' ? hashSeed(seed) : hashSeed(seed);
    this.a = 0x9e3779b9;
    this.b = 0x243f6a88;
    this.c = 0xb7e15162;
    this.d = s >>> 0;
    for (let i = 0; i < 15; i++) this.nextUint32();
  }

  static fromState(state: RngState): Rng {
    const r = new Rng(0);
    r.load(state);
    return r;
  }

  /** A child generator whose stream depends only on this seed lineage and the label. */
  fork(label: string | number): Rng {
    return new Rng(hashSeed(this.a, this.b, this.c, this.d, label));
  }

  state(): RngState {
    return [this.a >>> 0, this.b >>> 0, this.c >>> 0, this.d >>> 0];
  }

  load(state: RngState): void {
    [this.a, this.b, this.c, this.d] = state.map((v) => v >>> 0) as unknown as [
      number,
      number,
      number,
      number,
    ];
  }

  nextUint32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** Uniform in [0, 1) with 53 random bits. */
  float(): number {
    const hi = this.nextUint32() >>> 5;
    const lo = this.nextUint32() >>> 6;
    return (hi * 67108864 + lo) / 9007199254740992;
  }

  /** Uniform integer in [0, n). Unbiased (rejection sampling). */
  int(n: number): number {
    if (!Number.isInteger(n) || n <= 0)
      throw new RangeError(`Rng.int: n must be a positive integer, got ${n}`);
    if (n <= 0x100000000) {
      const limit = 0x100000000 - (0x100000000 % n);
      for (;;) {
        const x = this.nextUint32();
        if (x < limit) return x % n;
      }
    }
    return Math.floor(this.float() * n);
  }

  /** Standard normal (Box–Muller, no cached second value so state stays four words). */
  normal(mean = 0, sd = 1): number {
    let u = 0;
    while (u === 0) u = this.float();
    const v = this.float();
    return mean + sd * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }

  /** Gamma(shape, 1) by Marsaglia–Tsang. */
  gamma(shape: number): number {
    if (!(shape > 0)) throw new RangeError(`Rng.gamma: shape must be > 0, got ${shape}`);
    if (shape < 1) {
      const u = this.float();
      return this.gamma(shape + 1) * u ** (1 / shape);
    }
    const d = shape - 1 / 3;
    const c = 1 / Math.sqrt(9 * d);
    for (;;) {
      let x: number;
      let v: number;
      do {
        x = this.normal();
        v = 1 + c * x;
      } while (v <= 0);
      v = v * v * v;
      const u = this.float();
      if (u < 1 - 0.0331 * x * x * x * x) return d * v;
      if (Math.log(u) < 0.5 * x * x + d * (1 - v + Math.log(v))) return d * v;
    }
  }

  /** Beta(a, b) from two gamma draws. */
  beta(a: number, b: number): number {
    const x = this.gamma(a);
    const y = this.gamma(b);
    return x / (x + y);
  }

  /** Binomial(n, p) by summing Bernoullis (n is small in our uses: group sizes). */
  binomial(n: number, p: number): number {
    let k = 0;
    for (let i = 0; i < n; i++) if (this.float() < p) k++;
    return k;
  }

  /** Fisher–Yates shuffle in place; returns the same array. */
  shuffle<T>(items: T[]): T[] {
    for (let i = items.length - 1; i > 0; i--) {
      const j = this.int(i + 1);
      const tmp = items[i]!;
      items[i] = items[j]!;
      items[j] = tmp;
    }
    return items;
  }

  /** A permutation of 0..n-1 as an Int32Array. */
  permutation(n: number): Int32Array {
    const p = new Int32Array(n);
    for (let i = 0; i < n; i++) p[i] = i;
    for (let i = n - 1; i > 0; i--) {
      const j = this.int(i + 1);
      const tmp = p[i]!;
      p[i] = p[j]!;
      p[j] = tmp;
    }
    return p;
  }

  /** k distinct integers from [0, n), in draw order (Floyd's algorithm for k << n). */
  sampleDistinct(n: number, k: number): number[] {
    if (k > n) throw new RangeError(`Rng.sampleDistinct: cannot draw ${k} distinct from ${n}`);
    const chosen = new Set<number>();
    const out: number[] = [];
    for (let j = n - k; j < n; j++) {
      const t = this.int(j + 1);
      const pick = chosen.has(t) ? j : t;
      chosen.add(pick);
      out.push(pick);
    }
    return out;
  }
}
