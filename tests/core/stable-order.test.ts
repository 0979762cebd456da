import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { orderByKey } from '../../src/core/stable-order.ts';

describe('orderByKey', () => {
  it('orders by key ascending, ties in input order (the same as a stable comparator sort)', () => {
    fc.assert(
      fc.property(
        // Few distinct values (many ties), −0 among them.
        fc.array(fc.constantFrom(-1.5, -0, 0, 0.25, 1 / 3, 2, 1e-300, -7), { maxLength: 300 }),
        fc.integer({ min: 0, max: 1000 }),
        (values, offset) => {
          const ids = Int32Array.from(values, (_, j) => offset + ((j * 7919) % Math.max(1, values.length)));
          const keys = Float64Array.from(values);
          const want = Array.from(values, (v, j) => ({ v, j }))
            .sort((a, b) => a.v - b.v || a.j - b.j)
            .map(({ j }) => ids[j]!);
          expect(Array.from(orderByKey(ids, keys))).toEqual(want);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('handles distinct keys and the empty input', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ noNaN: true, noDefaultInfinity: true }), { maxLength: 200 }),
        (values) => {
          const ids = Int32Array.from(values, (_, j) => j);
          const got = Array.from(orderByKey(ids, Float64Array.from(values)));
          const want = values
            .map((v, j) => ({ v, j }))
            .sort((a, b) => a.v - b.v || a.j - b.j)
            .map(({ j }) => j);
          expect(got).toEqual(want);
        },
      ),
    );
    expect(orderByKey(new Int32Array(0), new Float64Array(0)).length).toBe(0);
  });
});
