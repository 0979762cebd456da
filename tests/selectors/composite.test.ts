import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { normalizePlugin } from '../../src/core/plugin.ts';
import type { JsonValue } from '../../src/core/task.ts';
import { CompositeSelector } from '../../src/selectors/composite.ts';
import { defineSelector } from '../../src/selectors/definition.ts';
import { buildSelector, SelectorConfigSchema, selectorRegistry } from '../../src/selectors/registry.ts';
import { SequentialSelector } from '../../src/selectors/sequential.ts';
import type { SelectContext, Selector, SelectorTaskView, TaskFeedback } from '../../src/selectors/types.ts';
import { feedbackFor, tinyView } from './fixtures/tiny.ts';

/**
 * A composite that says only how it combines: batches alternate between its two children (both
 * on all tasks); every feedback goes to both.
 */
class Alternate extends CompositeSelector {
  readonly type = 'alternate';

  protected initChildren(view: SelectorTaskView): void {
    this.ids = [...view.ids];
    for (const c of this.children) c.init(view);
  }

  protected combine(n: number, ctx?: SelectContext): string[] {
    return this.children[this.selectCalls % 2]!.select(n, ctx);
  }

  protected override routeFeedback(results: readonly TaskFeedback[], ctx?: SelectContext) {
    const report = {
      step: this.feedbackCalls,
      groups: 0,
      rewards: 0,
      mixedGroups: 0,
      clippedRewards: 0,
      droppedRewards: 0,
      unknownTasks: 0,
      emptyGroups: 0,
      warnings: [] as string[],
    };
    this.fanOut([results, results], report, (i) => `${'ab'[i]}: `, ctx);
    return report;
  }

  protected saveData(): { [key: string]: JsonValue } {
    return { a: this.childState(0), b: this.childState(1), counters: [this.selectCalls, this.selected] };
  }

  protected loadData(data: { [key: string]: JsonValue }): void {
    this.loadChild(0, data['a'], 'child a');
    this.loadChild(1, data['b'], 'child b');
    const [calls, selected] = data['counters'] as [number, number];
    this.selectCalls = calls;
    this.selected = selected;
  }
}

/** A user's selector: tasks in order, skipping the first `skip` of each batch it is asked for. */
const inOrder = defineSelector({
  name: 'in_order',
  description: 'tasks in order (a test plug-in)',
  params: z.strictObject({ skip: z.number().int().nonnegative().default(0) }),
  create: (p, { seed }) => {
    const inner: Selector = new SequentialSelector(seed);
    const select = inner.select.bind(inner);
    inner.select = (n, ctx) => select(n + p.skip, ctx).slice(p.skip);
    return inner;
  },
});

const slots = (slot: z.ZodType) => z.strictObject({ a: slot, b: slot });
const alternate = defineSelector({
  name: 'alternate',
  description: 'batches alternate between two selectors (a test composite)',
  params: slots(SelectorConfigSchema),
  paramsWith: slots,
  create: (p, ctx) =>
    new Alternate(
      [
        ctx.build(normalizePlugin(p.a), ctx.seed + 1, `${ctx.path}.params.a`),
        ctx.build(normalizePlugin(p.b), ctx.seed + 2, `${ctx.path}.params.b`),
      ],
      ctx.seed,
    ),
});

function registry() {
  const reg = selectorRegistry();
  reg.register(inOrder);
  reg.register(alternate);
  return reg;
}

const config = { type: 'alternate', params: { a: { type: 'in_order', params: { skip: 1 } }, b: 'shuffle' } };

function run(sel: Selector, from: number, to: number): string[][] {
  const out: string[][] = [];
  for (let t = from; t < to; t++) {
    const ids = sel.select(3, { step: t });
    sel.feedback(feedbackFor(ids, t), { step: t });
    out.push(ids);
  }
  return out;
}

describe('CompositeSelector: the bookkeeping a composite does not retype', () => {
  it('children built from the run registry (a user selector included); exact batches; resume continues exactly', () => {
    const sel = buildSelector(config, 5, 'selector', registry());
    sel.init(tinyView());
    const first = run(sel, 0, 3);
    const saved = JSON.parse(JSON.stringify(sel.state()));
    const rest = run(sel, 3, 6);
    expect([...first, ...rest]).toEqual(EXPECTED);
    expect(saved.type).toBe('alternate');
    expect(saved.n).toBe(10);
    expect(saved.totals.selectCalls).toBe(3);
    expect(Object.keys(saved.data)).toEqual(['a', 'b', 'counters']);
    const resumed = buildSelector(config, 5, 'selector', registry());
    resumed.init(tinyView());
    resumed.load(saved);
    expect(run(resumed, 3, 6)).toEqual(rest);
    expect(resumed.report()).toEqual(sel.report());
  });

  it('feedback fans out to every child: one report, counts summed, warnings named by child', () => {
    const sel = buildSelector(config, 5, 'selector', registry());
    sel.init(tinyView());
    const report = sel.feedback([
      { taskId: 't1', rewards: [1, 0, 2] },
      { taskId: 'nope', rewards: [1] },
    ]);
    expect(report.step).toBe(0);
    expect(report.groups).toBe(2);
    expect(report.rewards).toBe(6);
    expect(report.mixedGroups).toBe(2);
    expect(report.clippedRewards).toBe(2);
    expect(report.unknownTasks).toBe(2);
    expect(report.warnings).toEqual([
      "a: unknown task id 'nope' skipped",
      'a: 1 reward(s) outside [0, 1] clipped into range',
      "b: unknown task id 'nope' skipped",
      'b: 1 reward(s) outside [0, 1] clipped into range',
    ]);
    expect(sel.feedback([]).step).toBe(1);
    // The default totals are the first child's, with the composite's own select counts; a child
    // with nothing routed to it is not called (the empty call above reached neither child).
    expect(sel.report().feedbackCalls).toBe(1);
    expect(sel.report().selectCalls).toBe(0);
  });

  it('guards: init once, nothing before init, n checked, n = 0 is not a call, a missing child state is named', () => {
    const sel = buildSelector(config, 5, 'selector', registry());
    expect(() => sel.select(1)).toThrow('alternate.select: call init(view) first');
    expect(() => sel.feedback([])).toThrow('alternate.feedback: call init(view) first');
    sel.init(tinyView());
    expect(() => sel.init(tinyView())).toThrow('alternate: init() was already called');
    expect(() => sel.select(-1)).toThrow('alternate.select: n must be a non-negative integer, got -1');
    expect(sel.select(0)).toEqual([]);
    expect(sel.report().selectCalls).toBe(0);
    const state = sel.state();
    const { a: _a, ...withoutA } = state.data;
    expect(() => sel.load({ ...state, data: withoutA })).toThrow('alternate.load: no state for child a');
  });
});

const EXPECTED: string[][] = [
  ['t1', 't2', 't3'],
  ['t8', 't7', 't9'],
  ['t5', 't6', 't7'],
  ['t2', 't3', 't4'],
  ['t9', 't0', 't1'],
  ['t5', 't0', 't1'],
];
