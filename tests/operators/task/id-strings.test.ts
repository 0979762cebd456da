import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { taskContentId } from '../../../src/core/ids.ts';
import { ExactDedupIndex } from '../../../src/operators/task/exact-dedup-index.ts';
import { IdStrings } from '../../../src/operators/task/id-strings.ts';

const hex16 = fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }).map((v) => v.toString(16).padStart(16, '0'));
/** Content-hash ids, and strings one change away from that shape (case, length, prefix, digit). */
const idArb = fc.oneof(
  { weight: 6, arbitrary: hex16.map((h) => `t_${h}`) },
  hex16.map((h) => `t_${h.toUpperCase()}`),
  hex16.map((h) => `t_${h.slice(1)}`),
  hex16.map((h) => `t_${h}0`),
  hex16.map((h) => `u_${h}`),
  hex16.map((h) => `t_${h.slice(0, 7)}g${h.slice(8)}`),
  fc.string({ maxLength: 20 }),
);

describe('IdStrings', () => {
  it('gives back every id exactly, in order, and tells equal from unequal, whatever the mix (property)', () => {
    fc.assert(
      fc.property(fc.array(idArb, { maxLength: 120 }), fc.array(idArb, { maxLength: 10 }), (ids, others) => {
        const list = new IdStrings();
        ids.forEach((s, i) => {
          expect(list.push(s)).toBe(i);
        });
        expect(list.size).toBe(ids.length);
        const visited: string[] = [];
        list.forEach(ids.length, (units, n) => {
          visited.push(String.fromCharCode(...units.subarray(0, n)));
        });
        expect(visited).toEqual(ids);
        ids.forEach((s, i) => {
          expect(list.at(i)).toBe(s);
          expect(list.equals(i, s)).toBe(true);
          for (const o of [...others, ...ids]) expect(list.equals(i, o)).toBe(o === s);
        });
      }),
      { numRuns: 300 },
    );
  });

  it('keeps 50k content-hash ids as words, then every one exactly after an id of another shape', () => {
    const list = new IdStrings();
    const ids = Array.from({ length: 50_000 }, (_, i) => taskContentId({ prompt: `q${i}`, answer: `${i}` }));
    for (const id of ids) list.push(id);
    expect(list.at(0)).toBe(ids[0]);
    expect(list.at(49_999)).toBe(ids[49_999]);
    expect(list.equals(12_345, ids[12_345]!)).toBe(true);
    expect(list.equals(12_345, ids[12_346]!)).toBe(false);
    expect(list.push('row-7')).toBe(50_000);
    expect(list.push(ids[3]!)).toBe(50_001);
    for (const i of [0, 1, 17, 12_345, 49_999]) expect(list.at(i)).toBe(ids[i]);
    expect([list.at(50_000), list.at(50_001), list.size]).toEqual(['row-7', ids[3], 50_002]);
  });

  it('makes exact_dedup find a repeated content-hash id across a switch of shape', () => {
    const index = new ExactDedupIndex(true);
    const a = taskContentId({ prompt: 'a', answer: '1' });
    const b = taskContentId({ prompt: 'b', answer: '2' });
    expect(index.add(a, 1, 1)).toBe(0);
    expect(index.findId(a)).toBe(0);
    expect(index.findId(b)).toBe(-1);
    expect(index.add('plain-id', 2, 2)).toBe(1);
    expect(index.add(b, 3, 3)).toBe(2);
    expect([index.findId(a), index.findId(b), index.findId('plain-id')]).toEqual([0, 2, 1]);
    expect(index.idAt(findTextSlot(index, 3, 3))).toBe(b);
  });
});

function findTextSlot(index: ExactDedupIndex, key: number, check: number): number {
  return index.findText(key, check);
}
