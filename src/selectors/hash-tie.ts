/**
 * A bijective 32-bit mix of an index and a salt: a cheap, seeded tie-break order over millions of
 * tasks without drawing one random number per task.
 */
export function tieRank(index: number, salt: number): number {
  let x = (index ^ salt) >>> 0;
  x = Math.imul(x ^ (x >>> 16), 0x7feb352d);
  x = Math.imul(x ^ (x >>> 15), 0x846ca68b);
  return (x ^ (x >>> 16)) >>> 0;
}
