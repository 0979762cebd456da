import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createSelector, type SelectorConfig } from '../../src/selectors/registry.ts';
import type { Selector, SelectorState, SelectorTaskView } from '../../src/selectors/types.ts';
import { feedbackFor, tinyView } from './fixtures/tiny.ts';

const CONFIGS: Record<string, SelectorConfig> = {
  sequential: { type: 'sequential' },
  shuffle: { type: 'shuffle' },
  random: { type: 'random' },
  offline_easy2hard: {
    type: 'offline_easy2hard',
    params: { feature: ['level', 'weak_pass_rate'], order: 'desc' },
  },
  pass_rate: { type: 'pass_rate' },
  bots: { type: 'bots' },
  bots_softmax_adaptive: {
    type: 'bots',
    params: { tau: 0.05, adaptiveRho: true, adaptiveRhoThreshold: 0.1 },
  },
  bots_shortlist: { type: 'bots', params: { shortlist: 4, grid: 2 } },
  bots_explicit: { type: 'bots', params: { rho: 0 } },
  shared_ability: { type: 'shared_ability' },
  shared_ability_thompson: { type: 'shared_ability', params: { mode: 'thompson', shortlist: 5, grid: 2 } },
  shared_ability_candidates: { type: 'shared_ability', params: { candidates: 2 } },
  shared_ability_candidates_thompson: { type: 'shared_ability', params: { candidates: 2, mode: 'thompson' } },
  mixed: {
    type: 'mixed',
    params: {
      tasksets: [
        { taskset: 'even', weight: 2, selector: { type: 'shuffle' } },
        { taskset: 'odd', weight: 1, selector: { type: 'bots' } },
      ],
    },
  },
};

/** The fixture with its tasks split into two task sets (for the mixing selector). */
function viewFor(name: string): SelectorTaskView {
  const view = tinyView();
  if (name === 'mixed') view.tasksets = view.ids.map((_, k) => (k % 2 === 0 ? 'even' : 'odd'));
  return view;
}

function steps(sel: Selector, from: number, to: number): string[][] {
  const out: string[][] = [];
  for (let s = from; s < to; s++) {
    const ids = sel.select(3, { step: s });
    out.push(ids);
    sel.feedback(feedbackFor(ids, s), { step: s });
  }
  return out;
}

describe('resume: a selector restored from JSON text selects exactly what the uninterrupted one would', () => {
  for (const [name, config] of Object.entries(CONFIGS)) {
    it(name, () => {
      const whole = createSelector(config, viewFor(name), 42);
      const expected = steps(whole, 0, 12);

      const first = createSelector(config, viewFor(name), 42);
      // 5 × 3 = 15 tasks: the middle of the second epoch over ten tasks.
      const head = steps(first, 0, 5);
      const text = JSON.stringify(first.state());
      const second = createSelector(config, viewFor(name), 42);
      second.load(JSON.parse(text) as SelectorState);
      // The round trip is bit-exact: the restored state serialises to the same text.
      expect(JSON.stringify(second.state())).toBe(text);
      const tail = steps(second, 5, 12);
      expect([...head, ...tail]).toEqual(expected);
      expect(second.report().feedbackCalls).toBe(12);
    });
  }

  for (const name of ['bots', 'shared_ability', 'shuffle', 'pass_rate']) {
    it(`${name}: resume after tasks were added mid-run`, () => {
      const extra: SelectorTaskView = {
        ids: ['n0', 'n1', 'n2', 'n3'],
        features: {
          weak_pass_rate: Float64Array.from([0.1, 0.3, 0.5, 0.7]),
          strong_pass_rate: Float64Array.from([0.4, 0.6, 0.8, 0.9]),
          level: Float64Array.from([1, 2, 3, 4]),
        },
        domains: ['even', 'odd', 'new', 'new'],
      };
      const run = (sel: Selector, from: number, to: number) => {
        const out: string[][] = [];
        for (let s = from; s < to; s++) {
          if (s === 3) sel.addTasks!(extra);
          const ids = sel.select(3);
          out.push(ids);
          sel.feedback(
            ids.map((taskId) => ({ taskId, rewards: [s % 2, 1 - (s % 2), taskId.length % 2] })),
            { step: s },
          );
        }
        return out;
      };
      const config = CONFIGS[name]!;
      const expected = run(createSelector(config, tinyView(), 7), 0, 10);
      const first = createSelector(config, tinyView(), 7);
      const head = run(first, 0, 6);
      const state = JSON.parse(JSON.stringify(first.state())) as SelectorState;
      // A resumed run knows every task, including those that arrived: init with all of them.
      const all = tinyView();
      const full: SelectorTaskView = {
        ids: [...all.ids, ...extra.ids],
        features: Object.fromEntries(
          Object.entries(all.features).map(([k, v]) => {
            const out = new Float64Array(v.length + 4);
            out.set(v);
            out.set(extra.features[k]!, v.length);
            return [k, out];
          }),
        ),
        domains: [...(all.domains as string[]), ...(extra.domains as string[])],
      };
      const second = createSelector(config, full, 7);
      second.load(state);
      expect([...head, ...run(second, 6, 10)]).toEqual(expected);
    });
  }

  it('bots: resume while observed tasks are rejoining the shared track (fast forgetting)', () => {
    const config: SelectorConfig = { type: 'bots', params: { lambda: 0.5, shortlist: 4, grid: 2 } };
    const whole = createSelector(config, tinyView(), 3);
    const expected = steps(whole, 0, 150);
    const first = createSelector(config, tinyView(), 3);
    const head = steps(first, 0, 75);
    const second = createSelector(config, tinyView(), 3);
    second.load(JSON.parse(JSON.stringify(first.state())) as SelectorState);
    expect([...head, ...steps(second, 75, 150)]).toEqual(expected);
    expect(JSON.stringify(second.state())).toBe(JSON.stringify(whole.state()));
  });

  it('a state is refused by another selector type, another task list or a mismatched size', () => {
    const a = createSelector({ type: 'bots' }, tinyView(), 1);
    steps(a, 0, 2);
    const state = a.state();
    expect(() => createSelector({ type: 'shuffle' }, tinyView(), 1).load(state)).toThrow(
      /belongs to a 'bots'/,
    );
    expect(() => createSelector({ type: 'bots' }, tinyView(9), 1).load(state)).toThrow(/covers 10 tasks/);
    const renamed = tinyView();
    renamed.ids = renamed.ids.map((id) => `${id}x`);
    expect(() => createSelector({ type: 'bots' }, renamed, 1).load(state)).toThrow(/different task list/);
  });
});

describe('resume across processes', () => {
  it('two node processes with the state saved in between select what one process does', () => {
    const dir = mkdtempSync(join(tmpdir(), 'winnow-selector-resume-'));
    try {
      const script = fileURLToPath(new URL('./fixtures/resume-child.ts', import.meta.url));
      for (const config of [CONFIGS['shuffle']!, CONFIGS['bots']!, CONFIGS['shared_ability']!]) {
        const cfg = JSON.stringify(config);
        const node = (args: string[]) => execFileSync(process.execPath, [script, ...args], { stdio: 'pipe' });
        node([cfg, '0', '9', join(dir, 'whole.json'), join(dir, 'whole-out.json')]);
        node([cfg, '0', '4', join(dir, 'state.json'), join(dir, 'a.json')]);
        node([cfg, '4', '9', join(dir, 'state.json'), join(dir, 'b.json')]);
        const read = (f: string) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as string[][];
        const whole = read('whole-out.json');
        expect(whole).toHaveLength(9);
        expect([...read('a.json'), ...read('b.json')]).toEqual(whole);
        // The final states agree too.
        expect(readFileSync(join(dir, 'state.json'), 'utf8')).toBe(
          readFileSync(join(dir, 'whole.json'), 'utf8'),
        );
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
