const MUL_A = 0x7feb352d;
const MUL_B = 0x846ca68b;

/** The multiplicative inverse of an odd number modulo 2^32 (Newton's iteration doubles the correct bits). */
function inverseMod32(a: number): number {
  let x = a;
  for (let i = 0; i < 5; i++) x = Math.imul(x, 2 - Math.imul(a, x));
  return x >>> 0;
}
const INV_A = inverseMod32(MUL_A);
const INV_B = inverseMod32(MUL_B);

/**
 * A bijective 32-bit mix of an index and a salt: a cheap, seeded tie-break order over millions of
 * tasks without drawing one random number per task.
 */
export function tieRank(index: number, salt: number): number {
  let x = (index ^ salt) >>> 0;
  x = Math.imul(x ^ (x >>> 16), MUL_A);
  x = Math.imul(x ^ (x >>> 15), MUL_B);
  return (x ^ (x >>> 16)) >>> 0;
}

/**
 * The index whose `tieRank` under `salt` is `rank` (the inverse of the bijection), so the indices
 * with the smallest ranks can be listed in rank order without ranking every index.
 */
export function indexOfTieRank(rank: number, salt: number): number {
  let x = (rank ^ (rank >>> 16)) >>> 0;
  x = Math.imul(x, INV_B);
  x = (x ^ (x >>> 15) ^ (x >>> 30)) >>> 0;
  x = Math.imul(x, INV_A);
  x = (x ^ (x >>> 16)) >>> 0;
  return (x ^ salt) >>> 0;
}

/**
 * Calls `visit` with the indices in [0, size) that `skip` does not exclude, in increasing
 * `tieRank(·, salt)` order, until it returns false. It enumerates ranks and inverts them, so it costs
 * ~2^32 / size inversions per index visited: cheaper than ranking all `size` indices only when few
 * are wanted from a large set (see `rankWalkCost`).
 */
export function walkByTieRank(
  size: number,
  salt: number,
  skip: (index: number) => boolean,
  visit: (index: number) => boolean,
): void {
  for (let rank = 0; rank <= 0xffffffff; rank++) {
    const k = indexOfTieRank(rank, salt);
    if (k < size && !skip(k) && !visit(k)) return;
  }
}

/** Expected rank inversions `walkByTieRank` needs to visit `wanted` of `available` indices. */
export function rankWalkCost(wanted: number, available: number): number {
  return available <= 0 ? Number.POSITIVE_INFINITY : (wanted * 2 ** 32) / available;
}
