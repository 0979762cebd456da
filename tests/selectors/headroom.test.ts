import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Rng } from '../../src/core/rng.ts';
import type { HeadroomSelector } from '../../src/selectors/headroom.ts';
import {
  categoryHeadroom,
  categoryShares,
  drawCandidates,
  headroomScore,
  mixedRate,
  sampleMembers,
} from '../../src/selectors/headroom-levels.ts';
import { createSelector, type SelectorConfig } from '../../src/selectors/registry.ts';
import type { Selector, SelectorState, SelectorTaskView, TaskFeedback } from '../../src/selectors/types.ts';
import { feedbackFor, tinyView } from './fixtures/tiny.ts';

describe('headroom: the parts, computed by hand', () => {
  it('score = 4p(1 − p) · h^κ', () => {
    // A half-solved category (h 0.4) with a task at 0.6 against a mostly failed one (h 0.75) at 0.25.
    expect(headroomScore(0.6, 0.4, 1)).toBeCloseTo(0.96 * 0.4, 15);
    expect(headroomScore(0.25, 0.75, 1)).toBeCloseTo(0.75 * 0.75, 15);
    // κ = 0 is the plain learnability ranking, in which the 0.6 task wins instead.
    expect(headroomScore(0.6, 0.4, 0)).toBeCloseTo(0.96, 15);
    expect(headroomScore(0.25, 0.75, 0)).toBeCloseTo(0.75, 15);
    expect(headroomScore(0.5, 0.5, 2)).toBeCloseTo(0.25, 15);
    expect(headroomScore(Number.NaN, 0.5, 1)).toBe(0);
    expect(headroomScore(1, 0.5, 1)).toBe(0);
  });

  it('category headroom = 1 − mean prediction of its sample (non-finite predictions left out)', () => {
    const samples = [Int32Array.from([0, 1]), Int32Array.from([2]), Int32Array.from([3, 4, 5])];
    const h = categoryHeadroom(samples, [0.2, 0.4, 0.9, Number.NaN, 0.5, 0.7]);
    expect(Array.from(h).map((x) => Number(x.toFixed(12)))).toEqual([0.7, 0.1, 0.4]);
    expect(Array.from(categoryHeadroom([Int32Array.from([0])], [Number.NaN]))).toEqual([1]);
  });

  it('measured learnability = (a + 1) / (a + b + 2)', () => {
    expect(Array.from(mixedRate([3, 0, 0.5], [1, 0, 1.5]))).toEqual([4 / 6, 1 / 2, 1.5 / 4]);
  });

  it('category shares: (1 − ε)·w/Σw + ε/live, w = learnability · headroom^κ, empty categories 0', () => {
    // The example of the score test: w = 0.96·0.4 = 0.384 and 0.75·0.75 = 0.5625, the third empty.
    const s = categoryShares([0.96, 0.75, 0.9], [0.4, 0.75, 0.5], 1, 0.1, [8, 8, 0]);
    expect(s[0]).toBeCloseTo(0.9 * (0.384 / 0.9465) + 0.05, 15);
    expect(s[1]).toBeCloseTo(0.9 * (0.5625 / 0.9465) + 0.05, 15);
    expect(s[2]).toBe(0);
    // κ = 0: learnability alone; no weight anywhere: uniform over the live categories.
    const flat = categoryShares([0.96, 0.75], [0.4, 0.75], 0, 0, [1, 1]);
    expect(flat[0]).toBeCloseTo(0.96 / 1.71, 15);
    expect(Array.from(categoryShares([0, 0, 0], [1, 1, 1], 1, 0, [2, 0, 2]))).toEqual([0.5, 0, 0.5]);
  });

  it('candidates: distinct, never a taken task, all that is left when fewer than m remain', () => {
    const members = Int32Array.from([10, 11, 12, 13, 14, 15]);
    const rng = new Rng(9);
    const four = drawCandidates(rng, members, new Set([10, 11]), 4);
    expect(four).toHaveLength(4);
    expect(new Set(four).size).toBe(4);
    for (const k of four) expect([12, 13, 14, 15]).toContain(k);
    expect(drawCandidates(rng, members, new Set([10, 11, 12, 13, 14]), 3)).toEqual([15]);
    expect(drawCandidates(rng, members, new Set(members), 3)).toEqual([]);
  });

  it('the category sample: every member of a small category, `size` distinct members of a large one, seeded', () => {
    const members = [Int32Array.from([4, 7]), Int32Array.from({ length: 50 }, (_, i) => 100 + i)];
    const a = sampleMembers(members, 5, 3);
    expect(Array.from(a[0]!)).toEqual([4, 7]);
    expect(a[1]!.length).toBe(5);
    expect(new Set(a[1]!).size).toBe(5);
    for (const k of a[1]!) expect(k >= 100 && k < 150).toBe(true);
    expect(sampleMembers(members, 5, 3).map((m) => Array.from(m))).toEqual(a.map((m) => Array.from(m)));
    expect(Array.from(sampleMembers(members, 5, 4)[1]!)).not.toEqual(Array.from(a[1]!));
  });
});

/** Eight tasks in category A (a0–a7) and eight in B (b0–b7), no other columns. */
function twoCategories(): SelectorTaskView {
  const ids = [
    ...Array.from({ length: 8 }, (_, k) => `a${k}`),
    ...Array.from({ length: 8 }, (_, k) => `b${k}`),
  ];
  return { ids, features: {}, domains: ids.map((id) => id[0]!) };
}

/** A's tasks pass 5 of 8 rollouts (p ≈ 0.6, h ≈ 0.4), B's 2 of 8 (p ≈ 0.25, h ≈ 0.75). */
function teach(sel: Selector, calls: number): void {
  const group = (taskId: string): TaskFeedback => ({
    taskId,
    rewards: taskId.startsWith('a') ? [1, 1, 1, 1, 1, 0, 0, 0] : [1, 1, 0, 0, 0, 0, 0, 0],
  });
  for (let t = 0; t < calls; t++) sel.feedback(twoCategories().ids.map(group), { step: t });
}

describe('headroom: selection', () => {
  it('a category gets its hand-computed share of the picks; within it, the model picks tasks near 0.5', () => {
    const sel = createSelector(
      { type: 'headroom', params: { explore: 0, forget: 1 } },
      twoCategories(),
      5,
    ) as HeadroomSelector;
    teach(sel, 6);
    // Every group of A and of B came back mixed (6 calls × 8 groups): measured learnability 49/50 both.
    const predictedMean = (c: string) => {
      const ids = twoCategories().ids.filter((id) => id.startsWith(c));
      return Array.from(sel.predict(ids)).reduce((x, y) => x + y, 0) / ids.length;
    };
    const [ha, hb] = Array.from(sel.headroom()) as [number, number];
    expect(ha).toBeCloseTo(1 - predictedMean('a'), 12);
    expect(hb).toBeCloseTo(1 - predictedMean('b'), 12);
    expect(ha).toBeGreaterThan(0.34);
    expect(ha).toBeLessThan(0.45);
    expect(hb).toBeGreaterThan(0.69);
    expect(hb).toBeLessThan(0.8);
    // Equal learnability, so B's share is h_B / (h_A + h_B); one pick per select, 400 selects.
    let b = 0;
    for (let t = 0; t < 400; t++) if (sel.select(1)[0]!.startsWith('b')) b++;
    expect(Math.abs(b / 400 - hb / (ha + hb))).toBeLessThan(0.06);
  });

  it('κ large: the batch is the category with the headroom', () => {
    const strong = createSelector(
      { type: 'headroom', params: { explore: 0, headroomPower: 12 } },
      twoCategories(),
      5,
    );
    teach(strong, 6);
    // w_A ≈ 0.98 · 0.4^12 ≈ 2e-5 against w_B ≈ 0.98 · 0.75^12 ≈ 0.03: four picks from B.
    expect(
      strong
        .select(4)
        .map((id) => id[0])
        .join(''),
    ).toBe('bbbb');
  });

  it('κ = 0: shares follow the measured mixed rate, (a + 1) / (a + b + 2) per category', () => {
    const sel = createSelector(
      { type: 'headroom', params: { explore: 0, headroomPower: 0, forget: 1 } },
      twoCategories(),
      3,
    );
    // 10 calls: A's 8 groups mixed every time (a = 80, b = 0), B's all failed (a = 0, b = 80).
    for (let t = 0; t < 10; t++)
      sel.feedback(
        twoCategories().ids.map((taskId) => ({
          taskId,
          rewards: taskId.startsWith('a') ? [1, 0, 1, 0] : [0, 0, 0, 0],
        })),
      );
    // Shares 81/82 : 1/82 (normalised: 0.9878 : 0.0122); 300 one-task selects.
    let a = 0;
    for (let t = 0; t < 300; t++) if (sel.select(1)[0]!.startsWith('a')) a++;
    expect(a / 300).toBeGreaterThan(0.97);
    expect(a).toBeLessThan(300);
  });

  it('a batch is distinct and as large as asked; larger than the pool, it repeats whole rounds', () => {
    const sel = createSelector({ type: 'headroom' }, twoCategories(), 2);
    teach(sel, 2);
    const eight = sel.select(8);
    expect(new Set(eight).size).toBe(8);
    const twenty = sel.select(20);
    expect(twenty).toHaveLength(20);
    expect(new Set(twenty).size).toBe(16);
  });

  it('without domains every task shares one headroom (a notice says so); tasks added mid-run are refused', () => {
    const view = tinyView();
    delete view.domains;
    const sel = createSelector({ type: 'headroom' }, view, 1) as HeadroomSelector;
    expect(sel.headroom()).toHaveLength(1);
    expect(sel.report().notices.join(' ')).toMatch(/no domains/);
    const extra = tinyView(2);
    extra.ids = ['n0', 'n1'];
    expect(() => sel.addTasks!(extra)).toThrow(/cannot be added mid-run/);
  });

  it('an unknown category column is refused at init, naming the known ones', () => {
    expect(() => createSelector({ type: 'headroom', params: { category: 'nope' } }, tinyView(), 1)).toThrow(
      /no feature column 'nope'/,
    );
  });
});

function run(sel: Selector, from: number, to: number): string[][] {
  const out: string[][] = [];
  for (let s = from; s < to; s++) {
    const ids = sel.select(3, { step: s });
    out.push(ids);
    sel.feedback(feedbackFor(ids, s), { step: s });
  }
  return out;
}

describe('headroom: exact resume', () => {
  const configs: Record<string, SelectorConfig> = {
    thompson: { type: 'headroom' },
    expected: { type: 'headroom', params: { mode: 'expected', headroomPower: 2, candidates: 2 } },
    level: { type: 'headroom', params: { category: 'level', sample: 2 } },
  };
  for (const [name, config] of Object.entries(configs))
    it(`${name}: 5 steps, state through JSON text, 7 more identical to the uninterrupted run`, () => {
      const expected = run(createSelector(config, tinyView(), 42), 0, 12);
      const first = createSelector(config, tinyView(), 42);
      const head = run(first, 0, 5);
      const text = JSON.stringify(first.state());
      const second = createSelector(config, tinyView(), 42);
      second.load(JSON.parse(text) as SelectorState);
      expect(JSON.stringify(second.state())).toBe(text);
      expect([...head, ...run(second, 5, 12)]).toEqual(expected);
      expect(second.report().feedbackCalls).toBe(12);
    });

  it('a killed process resumed from its saved state selects what one uninterrupted process does', () => {
    const dir = mkdtempSync(join(tmpdir(), 'winnow-headroom-resume-'));
    try {
      const script = fileURLToPath(new URL('./fixtures/resume-child.ts', import.meta.url));
      const cfg = JSON.stringify(configs['thompson']);
      const node = (args: string[]) => execFileSync(process.execPath, [script, ...args], { stdio: 'pipe' });
      node([cfg, '0', '9', join(dir, 'whole.json'), join(dir, 'whole-out.json')]);
      node([cfg, '0', '4', join(dir, 'state.json'), join(dir, 'a.json')]);
      node([cfg, '4', '9', join(dir, 'state.json'), join(dir, 'b.json')]);
      const read = (f: string) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as string[][];
      expect(read('whole-out.json')).toHaveLength(9);
      expect([...read('a.json'), ...read('b.json')]).toEqual(read('whole-out.json'));
      expect(readFileSync(join(dir, 'state.json'), 'utf8')).toBe(
        readFileSync(join(dir, 'whole.json'), 'utf8'),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a state of another selector type is refused; a corrupt model state is refused with a one-line error', () => {
    const a = createSelector({ type: 'headroom' }, tinyView(), 1);
    run(a, 0, 2);
    expect(() => createSelector({ type: 'shared_ability' }, tinyView(), 1).load(a.state())).toThrow(
      /belongs to a 'headroom'/,
    );
    const bad = a.state();
    bad.data['model'] = 3;
    expect(() => createSelector({ type: 'headroom' }, tinyView(), 1).load(bad)).toThrow(
      /pass-rate model state/,
    );
  });
});
