import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigError } from '../../src/core/errors.ts';
import { defineSelector } from '../../src/selectors/definition.ts';
import { buildSelector, selectorRegistry } from '../../src/selectors/registry.ts';
import { SequentialSelector } from '../../src/selectors/sequential.ts';
import type { Selector, SelectorTaskView } from '../../src/selectors/types.ts';

/** Two task sets of six, `a-0…a-5` and `b-0…b-5`; each task has a 2-d embedding (none for a-3). */
function view(): SelectorTaskView {
  const ids = [
    ...Array.from({ length: 6 }, (_, i) => `a-${i}`),
    ...Array.from({ length: 6 }, (_, i) => `b-${i}`),
  ];
  return {
    ids,
    features: {},
    tasksets: ids.map((id) => id[0]!),
    vectors: {
      'meta.embedding': ids.map((id, i) => (id === 'a-3' ? null : [Math.cos(i), Math.sin(i)])),
    },
  };
}

/** A user's selector: tasks in reverse order. */
const reversed = defineSelector({
  name: 'reversed',
  description: 'tasks last to first (a test plug-in)',
  params: z.strictObject({ from: z.number().int().nonnegative().default(0) }),
  create: (p, { seed }) => {
    const inner: Selector = new SequentialSelector(seed);
    let ids: readonly string[] = [];
    const init = inner.init.bind(inner);
    inner.init = (v) => {
      ids = [...v.ids].reverse().slice(p.from);
      init(v);
    };
    let at = 0;
    inner.select = (n) => Array.from({ length: n }, () => ids[at++ % ids.length]!);
    return inner;
  },
});

function configError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ConfigError) return e;
    throw e;
  }
  throw new Error('expected a ConfigError');
}

const mixed = (a: unknown, b: unknown) => ({
  type: 'mixed',
  params: {
    tasksets: [
      { taskset: 'a', weight: 1, selector: a },
      { taskset: 'b', weight: 1, selector: b },
    ],
  },
});

describe('mixed: nested selectors come from the run registry and are checked at the door', () => {
  it('a selector registered for this run works as a task set’s selector (params filled and used)', () => {
    const reg = selectorRegistry();
    reg.register(reversed);
    const sel = buildSelector(
      mixed({ type: 'reversed', params: { from: 1 } }, 'sequential'),
      3,
      'selector',
      reg,
    );
    sel.init(view());
    expect([sel.select(4), sel.select(4)]).toEqual([
      ['a-4', 'a-3', 'b-0', 'b-1'],
      ['a-2', 'a-1', 'b-2', 'b-3'],
    ]);
    // Another run's registry does not know it.
    expect(configError(() => buildSelector(mixed('reversed', 'sequential'), 3)).path).toBe(
      'selector.params.tasksets[0].selector',
    );
  });

  it('an unknown selector name inside mixed: the full key path, before anything is built', () => {
    const e = configError(() => buildSelector(mixed('sequential', { type: 'pass_rat' }), 3, 'run.selector'));
    expect(e.path).toBe('run.selector.params.tasksets[1].selector.type');
    expect(e.message).toMatch(/unknown selector 'pass_rat'.*did you mean 'pass_rate'/);
  });

  it('an unknown parameter two selectors deep (mixed → diverse → bots): the full key path', () => {
    const e = configError(() =>
      buildSelector(
        mixed('sequential', {
          type: 'diverse',
          params: { selector: { type: 'bots', params: { lamda: 0.2 } } },
        }),
        3,
      ),
    );
    expect(e.path).toBe('selector.params.tasksets[1].selector.params.selector.params.lamda');
    expect(e.message).toMatch(/did you mean .*'lambda'/);
  });

  it('diverse as a task set’s selector sees that set’s embeddings', () => {
    const sel = buildSelector(
      mixed({ type: 'diverse', params: { selector: 'sequential', lambda: 0, pool: 2 } }, 'sequential'),
      3,
    );
    sel.init(view());
    // a's quota of 2 from 4 candidates (a-0…a-3), λ = 0: after a-0, the least like it. a-i's
    // vector is at angle i: similarity to a-0 is cos(i), so a-2 (cos 2 < 0) beats a-3 (no vector: 0).
    expect(sel.select(4)).toEqual(['a-0', 'a-2', 'b-0', 'b-1']);
  });
});
