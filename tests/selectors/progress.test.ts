import { describe, expect, it } from 'vitest';
import type { ProgressSelector } from '../../src/selectors/progress.ts';
import {
  learnability,
  learningProgress,
  progressShares,
  stepTrack,
} from '../../src/selectors/progress-rule.ts';
import { createSelector, type SelectorConfig } from '../../src/selectors/registry.ts';
import type { Selector, SelectorState, SelectorTaskView } from '../../src/selectors/types.ts';
import { feedbackFor, tinyView } from './fixtures/tiny.ts';

describe('progress: the allocation rule, computed by hand', () => {
  it('running means: the plain mean up to the horizon, then steps of 1/H', () => {
    // Horizons 2 and 4; rewards 0, 0.25, 0.5, 0.75, 1 (all binary fractions: exact in floating point).
    let t = { n: 0, fast: 0, slow: 0 };
    const seen: Array<[number, number]> = [];
    for (const r of [0, 0.25, 0.5, 0.75, 1]) {
      t = stepTrack(t, r, 2, 4);
      seen.push([t.fast, t.slow]);
    }
    expect(seen).toEqual([
      [0, 0],
      [0.125, 0.125],
      [0.3125, 0.25],
      [0.53125, 0.375],
      [0.765625, 0.53125],
    ]);
    expect(t.n).toBe(5);
  });

  it('learning progress is |fast − slow|, in either direction', () => {
    expect(Array.from(learningProgress([0.765625, 0.5, 0.25], [0.53125, 0.5, 0.5]))).toEqual([
      0.234375, 0, 0.25,
    ]);
  });

  it('shares: φ·size/N + (1 − φ)·LP/ΣLP; no progress anywhere gives random’s split; empty categories 0', () => {
    expect(Array.from(progressShares([0.234375, 0, 0], [8, 8, 16], 0.5))).toEqual([0.625, 0.125, 0.25]);
    expect(Array.from(progressShares([0.1, 0.3, 0], [10, 30, 0], 0.5))).toEqual([0.25, 0.75, 0]);
    expect(Array.from(progressShares([0, 0, 0], [10, 30, 40], 0.5))).toEqual([0.125, 0.375, 0.5]);
    expect(Array.from(progressShares([0.2, 0.2], [1, 3], 1))).toEqual([0.25, 0.75]);
    expect(Array.from(progressShares([0, 0], [0, 0], 0.5))).toEqual([0, 0]);
  });

  it('learnability 4p(1 − p), 0 for a non-finite prediction', () => {
    expect([0.5, 0.25, 1, 0].map(learnability)).toEqual([1, 0.75, 0, 0]);
    expect(learnability(Number.NaN)).toBe(0);
  });
});

/** Categories A and B with eight tasks each, C with sixteen. */
function threeCategories(): SelectorTaskView {
  const ids = [
    ...Array.from({ length: 8 }, (_, k) => `a${k}`),
    ...Array.from({ length: 8 }, (_, k) => `b${k}`),
    ...Array.from({ length: 16 }, (_, k) => `c${k}`),
  ];
  return { ids, features: {}, domains: ids.map((id) => id[0]!) };
}

/** Five feedback calls: A's group improves 0 → 1 (step 1/4), B stays at 0.5, C is never seen. */
function teachRising(sel: Selector): void {
  const a = [
    [0, 0, 0, 0],
    [1, 0, 0, 0],
    [1, 1, 0, 0],
    [1, 1, 1, 0],
    [1, 1, 1, 1],
  ];
  for (const [t, rewards] of a.entries())
    sel.feedback(
      [
        { taskId: `a${t}`, rewards },
        { taskId: `b${t}`, rewards: [1, 0, 1, 0] },
      ],
      { step: t },
    );
}

describe('progress: selection on a hand-computed state', () => {
  it('the selector’s shares are the rule’s on its own counts, and the picks follow them', () => {
    const sel = createSelector(
      { type: 'progress', params: { fastHorizon: 2, slowHorizon: 4 } },
      threeCategories(),
      7,
    ) as ProgressSelector;
    // Before any feedback: random's split by category size.
    expect(sel.shares()).toEqual({ a: 0.25, b: 0.25, c: 0.5 });
    teachRising(sel);
    // A: fast 0.765625, slow 0.53125 (the running-mean test) → LP 0.234375; B and C: LP 0.
    expect(sel.progress()).toEqual({ a: 0.234375, b: 0, c: 0 });
    // share_A = 0.5·8/32 + 0.5·1 = 0.625; B = 0.5·8/32 = 0.125; C = 0.5·16/32 = 0.25.
    expect(sel.shares()).toEqual({ a: 0.625, b: 0.125, c: 0.25 });
    const counts = { a: 0, b: 0, c: 0 } as Record<string, number>;
    for (let t = 0; t < 800; t++) counts[sel.select(1)[0]![0]!]!++;
    expect(Math.abs(counts['a']! / 800 - 0.625)).toBeLessThan(0.05);
    expect(Math.abs(counts['b']! / 800 - 0.125)).toBeLessThan(0.04);
    expect(Math.abs(counts['c']! / 800 - 0.25)).toBeLessThan(0.05);
  });

  it('a category the learner forgets (its pass rate falls) gains share the same way', () => {
    const sel = createSelector(
      { type: 'progress', params: { fastHorizon: 2, slowHorizon: 4 } },
      threeCategories(),
      7,
    ) as ProgressSelector;
    // B falls 1 → 0 (the mirror of A's rise): fast 0.234375, slow 0.46875, LP 0.234375.
    for (const [t, m] of [1, 0.75, 0.5, 0.25, 0].entries())
      sel.feedback([{ taskId: `b${t}`, rewards: [0, 1, 2, 3].map((i) => (i < m * 4 ? 1 : 0)) }], { step: t });
    expect(sel.progress()).toEqual({ a: 0, b: 0.234375, c: 0 });
    expect(sel.shares()).toEqual({ a: 0.125, b: 0.625, c: 0.25 });
  });

  it('a batch is distinct and as large as asked; larger than the pool it repeats whole rounds', () => {
    for (const candidates of [1, 4]) {
      const sel = createSelector({ type: 'progress', params: { candidates } }, threeCategories(), 2);
      teachRising(sel);
      const ten = sel.select(10);
      expect(new Set(ten).size).toBe(10);
      const forty = sel.select(40);
      expect(forty).toHaveLength(40);
      expect(new Set(forty).size).toBe(32);
    }
  });

  it('refuses a slow horizon shorter than the fast one, an unknown column, and tasks added mid-run', () => {
    expect(() =>
      createSelector({ type: 'progress', params: { fastHorizon: 8, slowHorizon: 4 } }, tinyView(), 1),
    ).toThrow(/slowHorizon \(4\) must be at least fastHorizon \(8\)/);
    expect(() => createSelector({ type: 'progress', params: { category: 'nope' } }, tinyView(), 1)).toThrow(
      /no feature column 'nope'/,
    );
    const sel = createSelector({ type: 'progress' }, tinyView(), 1);
    const extra = tinyView(2);
    extra.ids = ['n0', 'n1'];
    expect(() => sel.addTasks!(extra)).toThrow(/cannot be added mid-run/);
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

describe('progress: determinism and exact resume', () => {
  const configs: Record<string, SelectorConfig> = {
    uniform: { type: 'progress' },
    candidates: { type: 'progress', params: { candidates: 4 } },
    level: { type: 'progress', params: { category: 'level', fastHorizon: 2, slowHorizon: 3 } },
  };
  for (const [name, config] of Object.entries(configs)) {
    it(`${name}: the same seed selects the same tasks; another seed does not`, () => {
      const a = run(createSelector(config, tinyView(), 42), 0, 12);
      expect(run(createSelector(config, tinyView(), 42), 0, 12)).toEqual(a);
      expect(run(createSelector(config, tinyView(), 43), 0, 12)).not.toEqual(a);
    });

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
  }

  it('a corrupt state is refused with a one-line error', () => {
    const a = createSelector({ type: 'progress', params: { candidates: 4 } }, tinyView(), 1);
    run(a, 0, 2);
    const bad = a.state();
    bad.data['model'] = 3;
    expect(() =>
      createSelector({ type: 'progress', params: { candidates: 4 } }, tinyView(), 1).load(bad),
    ).toThrow(/pass-rate model state/);
    const short = a.state();
    delete short.data['fast'];
    expect(() =>
      createSelector({ type: 'progress', params: { candidates: 4 } }, tinyView(), 1).load(short),
    ).toThrow();
  });
});
