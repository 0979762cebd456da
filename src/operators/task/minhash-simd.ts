/**
 * MinHash's inner loop in WebAssembly SIMD: four permutations per 128-bit lane op, sixteen per
 * pass over the shingles. It computes exactly what `MinHasher.signatureOfShingles` computes in
 * JavaScript (`(a·x + b') | 0` with 32-bit wrap, signed minimum, b' = b ^ 0x80000000), so
 * signatures, and near_dedup's decisions, do not depend on which one ran. The module is a few
 * hundred bytes assembled here (no build step, no binary file); where WebAssembly SIMD is missing,
 * `createSimdSigner` returns null and the JavaScript loop runs.
 */

const u = (n: number): number[] => {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n !== 0) b |= 0x80;
    out.push(b);
  } while (n !== 0);
  return out;
};
const s = (n: number): number[] => {
  const out: number[] = [];
  for (;;) {
    const b = n & 0x7f;
    n >>= 7;
    if ((n === 0 && (b & 0x40) === 0) || (n === -1 && (b & 0x40) !== 0)) {
      out.push(b);
      return out;
    }
    out.push(b | 0x80);
  }
};
const section = (id: number, body: number[]) => [id, ...u(body.length), ...body];
const vec = (items: number[][]) => [...u(items.length), ...items.flat()];
const name = (t: string) => [...u(t.length), ...[...t].map((c) => c.charCodeAt(0))];

// Opcodes used below.
const get = (i: number) => [0x20, ...u(i)];
const set = (i: number) => [0x21, ...u(i)];
const i32c = (n: number) => [0x41, ...s(n)];
const I32_ADD = 0x6a;
const I32_SHL = 0x74;
const I32_GE_U = 0x4f;
const i32load = [0x28, 2, 0];
const simd = (op: number) => [0xfd, ...u(op)];
const v128load = (offset: number) => [...simd(0), 4, ...u(offset)];
const v128store = (offset: number) => [...simd(11), 4, ...u(offset)];
const SPLAT = simd(17);
const ADD = simd(174);
const MUL = simd(181);
const MIN_S = simd(182);

// Params: sh, ns, ab, out, k. Locals: p, j, pa, po (i32); x, a0–a3, b0–b3, m0–m3 (v128).
const [SH, NS, AB, OUT, K, P, J, PA, PO, X] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];
const A = (q: number) => 10 + q;
const B = (q: number) => 14 + q;
const M = (q: number) => 18 + q;
const lanes = [0, 1, 2, 3];

const body = [
  ...vec([
    [4, 0x7f],
    [13, 0x7b],
  ]), // local declarations
  ...i32c(0),
  ...set(P),
  0x02,
  0x40, // block $done
  0x03,
  0x40, // loop $perm
  ...get(P),
  ...get(K),
  I32_GE_U,
  0x0d,
  1, // br_if $done
  ...get(AB),
  ...get(P),
  ...i32c(2),
  I32_SHL,
  I32_ADD,
  ...set(PA),
  ...lanes.flatMap((q) => [...get(PA), ...v128load(16 * q), ...set(A(q))]),
  ...get(PA),
  ...get(K),
  ...i32c(2),
  I32_SHL,
  I32_ADD,
  ...set(PA),
  ...lanes.flatMap((q) => [...get(PA), ...v128load(16 * q), ...set(B(q))]),
  ...lanes.flatMap((q) => [...i32c(0x7fffffff), ...SPLAT, ...set(M(q))]),
  ...i32c(0),
  ...set(J),
  0x02,
  0x40, // block $shinglesDone
  0x03,
  0x40, // loop $shingles
  ...get(J),
  ...get(NS),
  I32_GE_U,
  0x0d,
  1, // br_if $shinglesDone
  ...get(SH),
  ...get(J),
  ...i32c(2),
  I32_SHL,
  I32_ADD,
  ...i32load,
  ...SPLAT,
  ...set(X),
  ...lanes.flatMap((q) => [
    ...get(M(q)),
    ...get(A(q)),
    ...get(X),
    ...MUL,
    ...get(B(q)),
    ...ADD,
    ...MIN_S,
    ...set(M(q)),
  ]),
  ...get(J),
  ...i32c(1),
  I32_ADD,
  ...set(J),
  0x0c,
  0, // br $shingles
  0x0b,
  0x0b, // end loop, end block
  ...get(OUT),
  ...get(P),
  ...i32c(2),
  I32_SHL,
  I32_ADD,
  ...set(PO),
  ...lanes.flatMap((q) => [...get(PO), ...get(M(q)), ...v128store(16 * q)]),
  ...get(P),
  ...i32c(16),
  I32_ADD,
  ...set(P),
  0x0c,
  0, // br $perm
  0x0b,
  0x0b, // end loop, end block
  0x0b, // end function
];

const BYTES = new Uint8Array([
  0x00,
  0x61,
  0x73,
  0x6d,
  0x01,
  0x00,
  0x00,
  0x00,
  ...section(1, vec([[0x60, ...vec([[0x7f], [0x7f], [0x7f], [0x7f], [0x7f]]), 0]])),
  ...section(3, vec([[0]])),
  ...section(5, vec([[0x00, 1]])),
  ...section(
    7,
    vec([
      [...name('mem'), 0x02, 0],
      [...name('sig'), 0x00, 0],
    ]),
  ),
  ...section(10, vec([[...u(body.length), ...body]])),
]);

/** The part of the WebAssembly API used here (the project's type libraries do not declare it). */
interface WasmApi {
  validate(bytes: Uint8Array): boolean;
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: Record<string, unknown> };
}
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
const wasm = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;

export interface SimdSigner {
  /** Signature of `shingles` into `out[offset … offset + k)`. */
  sign(shingles: Uint32Array, out: Uint32Array, offset: number): void;
}

/**
 * A SIMD signer for the permutation coefficients `a`, `b` (k a multiple of 16), or null where
 * WebAssembly SIMD is unavailable.
 */
export function createSimdSigner(a: Uint32Array, b: Uint32Array): SimdSigner | null {
  const k = a.length;
  if (k % 16 !== 0 || !wasm || !wasm.validate(BYTES)) return null;
  const instance = new wasm.Instance(new wasm.Module(BYTES));
  const mem = instance.exports.mem as WasmMemory;
  const sig = instance.exports.sig as (sh: number, ns: number, ab: number, out: number, k: number) => void;
  // Layout: a (k int32) | b' (k int32) | out (k int32) | shingles (grows).
  const AB = 0;
  const OUT_AT = 8 * k;
  const SH_AT = 12 * k;
  let view = new Int32Array(mem.buffer);
  for (let p = 0; p < k; p++) {
    view[p] = a[p]! | 0;
    view[k + p] = (b[p]! ^ 0x80000000) | 0;
  }
  return {
    sign(shingles, out, offset) {
      const need = SH_AT + 4 * shingles.length;
      if (need > mem.buffer.byteLength) {
        mem.grow(Math.ceil((need - mem.buffer.byteLength) / 65536));
        view = new Int32Array(mem.buffer);
      } else if (view.buffer !== mem.buffer) view = new Int32Array(mem.buffer);
      new Uint32Array(mem.buffer, SH_AT, shingles.length).set(shingles);
      sig(SH_AT, shingles.length, AB, OUT_AT, k);
      const base = OUT_AT >> 2;
      for (let p = 0; p < k; p++) out[offset + p] = (view[base + p]! ^ 0x80000000) >>> 0;
    },
  };
}
