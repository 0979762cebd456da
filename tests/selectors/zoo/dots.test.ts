import { describe, expect, it } from 'vitest';
import type { DotsSelector } from '../../../src/selectors/zoo/dots.ts';
import { build } from './zoo-fixture.ts';

const vec = { a: [1, 0], b: [0, 1], c: [1, 1] };
const view = {
  ids: ['a', 'b', 'c'],
  features: {},
  vectors: { 'meta.embedding': [vec.a, vec.b, vec.c] },
};
const cos: Record<string, number> = { 'a|b': 0, 'a|c': Math.SQRT1_2, 'b|c': Math.SQRT1_2 };
const cosine = (x: string, y: string) => cos[[x, y].sort().join('|')]!;

describe('dots', () => {
  it('probes the reference set every μ steps and predicts by attention over similarity', () => {
    const s = build(
      { type: 'dots', params: { referenceSize: 2, every: 2, attentionTemperature: 1 } },
      view,
    ) as DotsSelector;
    const refs = s.probe();
    expect(refs).toEqual(s.referenceTasks());
    expect(refs.length).toBe(2);
    expect(s.probe()).toEqual([]); // one probe per due step
    const [r1, r2] = refs as [string, string];
    const other = ['a', 'b', 'c'].find((x) => !refs.includes(x))!;
    s.feedback([
      { taskId: r1, rewards: [1, 1, 1, 0] }, // difficulty 0.25
      { taskId: r2, rewards: [0, 0, 0, 0] }, // difficulty 1
    ]);
    const w1 = Math.exp(cosine(other, r1));
    const w2 = Math.exp(cosine(other, r2));
    const d = s.difficulty([other, r1, r2]);
    expect(d[0]).toBeCloseTo((w1 * 0.25 + w2 * 1) / (w1 + w2), 14);
    expect(d[1]).toBe(0.25);
    expect(d[2]).toBe(1);
    s.select(1);
    expect(s.probe()).toEqual([]); // μ = 2: not yet
    s.select(1);
    expect(s.probe()).toEqual(refs);
  });
});
