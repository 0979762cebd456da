import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PriorityHeap } from '../../src/buffer/samplers/priority-heap.ts';
import {
  drawWithoutReplacement,
  type IndexedView,
  importanceWeights,
  type SelectionPolicy,
  selectSlots,
} from '../../src/buffer/samplers/select.ts';
import { Rng } from '../../src/core/rng.ts';
import { SumTree } from '../../src/core/sum-tree.ts';

describe('SumTree', () => {
  it('draws each slot with probability weight / total (property: find lands inside its interval)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 0, max: 100, noNaN: true }), { minLength: 1, maxLength: 60 }),
        fc.double({ min: 0, max: 0.999999, noNaN: true }),
        (ws, f) => {
          const t = new SumTree();
          for (const [i, w] of ws.entries()) t.set(i, w);
          const total = ws.reduce((a, b) => a + b, 0);
          expect(t.total).toBeCloseTo(total, 6);
          if (total === 0) {
            expect(t.find(0)).toBe(-1);
            return;
          }
          const u = f * t.total;
          const i = t.find(u);
          let before = 0;
          for (let k = 0; k < i; k++) before += ws[k]!;
          expect(ws[i]!).toBeGreaterThan(0);
          expect(before).toBeLessThanOrEqual(u + 1e-9);
          expect(before + ws[i]!).toBeGreaterThanOrEqual(u - 1e-9);
        },
      ),
    );
  });

  it('updates and grows', () => {
    const t = new SumTree();
    t.set(0, 1);
    t.set(5000, 3);
    expect(t.total).toBe(4);
    expect(t.find(0.5)).toBe(0);
    expect(t.find(1.5)).toBe(5000);
    t.set(5000, 0);
    expect(t.find(0.99)).toBe(0);
    expect(t.total).toBe(1);
  });
});

describe('PriorityHeap', () => {
  it('pops by (priority desc, seq desc) after arbitrary updates and removals', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 30 }), fc.integer({ min: -5, max: 5 }), fc.boolean()), {
          maxLength: 80,
        }),
        (ops) => {
          const keys = {
            priority: new Float64Array(31),
            seq: Float64Array.from({ length: 31 }, (_, i) => i),
          };
          const heap = new PriorityHeap(keys);
          const present = new Set<number>();
          for (const [slot, p, del] of ops) {
            if (del) {
              heap.remove(slot);
              present.delete(slot);
            } else {
              keys.priority[slot] = p;
              heap.upsert(slot);
              present.add(slot);
            }
          }
          const expected = [...present].sort((a, b) => keys.priority[b]! - keys.priority[a]! || b - a);
          const got: number[] = [];
          while (heap.size > 0) got.push(heap.pop());
          expect(got).toEqual(expected);
        },
      ),
    );
  });
});

describe('weighted draws', () => {
  it('drawWithoutReplacement never repeats and matches P ∝ w for the first draw', () => {
    const rng = new Rng(11);
    const w = Float64Array.from([1, 2, 3, 4]);
    const counts = [0, 0, 0, 0];
    for (let i = 0; i < 20_000; i++) {
      const { picks } = drawWithoutReplacement(w, 2, rng);
      expect(new Set(picks).size).toBe(2);
      counts[picks[0]!]!++;
    }
    for (const [i, c] of counts.entries()) expect(c / 20_000).toBeCloseTo((i + 1) / 10, 2);
  });

  it('second draws follow the renormalised weights (sampling without replacement)', () => {
    const rng = new Rng(12);
    const w = Float64Array.from([1, 1, 8]);
    let secondIs2GivenFirst0 = 0;
    let firstIs0 = 0;
    for (let i = 0; i < 20_000; i++) {
      const { picks } = drawWithoutReplacement(w, 2, rng);
      if (picks[0] === 0) {
        firstIs0++;
        if (picks[1] === 2) secondIs2GivenFirst0++;
      }
    }
    expect(secondIs2GivenFirst0 / firstIs0).toBeCloseTo(8 / 9, 1);
  });

  it('importance weights: (N·P)^−β over the batch maximum', () => {
    // P = s / 10, N = 4: raw = (4·s/10)^−0.5 → normalised by the largest (smallest s).
    const s = [1, 4, 2];
    const raw = s.map((x) => ((4 * x) / 10) ** -0.5);
    const max = Math.max(...raw);
    for (const [i, w] of importanceWeights(s, 0.5).entries()) expect(w).toBeCloseTo(raw[i]! / max, 14);
    expect(importanceWeights(s, 0)).toEqual([1, 1, 1]);
  });
});

describe('selectSlots', () => {
  const disc = (mode: SelectionPolicy['mode']): SelectionPolicy => ({
    mode,
    beta: 0,
    weight: (p) => p,
  });
  const view = (priority: number[], eligible: (s: number) => boolean, group?: number[]): IndexedView => ({
    start: 0,
    end: priority.length,
    seq: Float64Array.from(priority, (_, i) => i),
    priority: Float64Array.from(priority),
    group: Int32Array.from(group ?? priority.map((_, i) => i)),
    eligible,
  });

  it('highest without a heap: top n by priority, ties newest first, skipping the ineligible', () => {
    const v = view([5, 9, 9, 1, 7], (s) => s !== 4);
    expect(selectSlots(disc('highest'), v, 3, { keepGroups: false, rng: new Rng(1) }).slots).toEqual([
      2, 1, 0,
    ]);
  });

  it('weighted with a tree equals weighted without one in distribution support (never ineligible, never repeated)', () => {
    const pri = [0, 3, 1, 0, 5, 2];
    const tree = new SumTree();
    for (const [i, p] of pri.entries()) tree.set(i, p);
    const v = { ...view(pri, (s) => s !== 4), tree };
    for (let seed = 0; seed < 50; seed++) {
      const got = selectSlots(disc('weighted'), v, 3, { keepGroups: false, rng: new Rng(seed) }).slots;
      expect(new Set(got).size).toBe(got.length);
      expect(got).not.toContain(4);
      for (const s of got) expect(pri[s]).toBeGreaterThan(0);
      expect(got.length).toBe(3);
    }
  });

  it('keepGroups with highest: groups ranked by mean priority, never split', () => {
    const v = view([1, 1, 9, 0, 5, 5], () => true, [0, 0, 1, 1, 2, 2]);
    // means: g0 1, g1 4.5, g2 5
    expect(selectSlots(disc('highest'), v, 4, { keepGroups: true, rng: new Rng(1) }).slots).toEqual([
      4, 5, 2, 3,
    ]);
    expect(selectSlots(disc('highest'), v, 3, { keepGroups: true, rng: new Rng(1) }).slots).toEqual([4, 5]);
  });
});
