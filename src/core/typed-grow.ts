// Growing a typed array: a longer one of the same type, the old values copied, the rest filled.

type Typed = Float64Array | Int32Array | Uint8Array;

/** A copy of `a` with room for `capacity` values; the new tail holds `fill` (0 unless given). */
export function growTyped<T extends Typed>(a: T, capacity: number, fill?: number): T {
  const out = new (a.constructor as new (n: number) => T)(capacity);
  out.set(a);
  if (fill !== undefined) out.fill(fill, a.length);
  return out;
}
