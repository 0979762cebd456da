import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CandidateView } from '../../src/buffer/samplers/sampler.ts';
import { parseConfig } from '../../src/core/config.ts';
import { Rng } from '../../src/core/rng.ts';
import type { Task } from '../../src/core/task.ts';
import { taskPipelineConfigSchema } from '../../src/lifecycle/pipeline/task-pipeline-config.ts';
import { parseRftConfig } from '../../src/lifecycle/run/rft-run.ts';
import { defaultRegistries } from '../../src/lifecycle/run/run-registries.ts';
import { OperatorGraph } from '../../src/operators/graph.ts';
import { buildGraph } from '../../src/operators/graph-spec.ts';
import { taskOperatorRegistry } from '../../src/operators/registries.ts';
import { taskViewFromTasks } from '../../src/selectors/task-view.ts';
import { smallRftRaw } from '../helpers/rft.ts';
import { registerExamples } from './extend-example/register.ts';

// docs/architecture.md, "Adding a sampler, an operator, a selector": its diff blocks must be what the
// example files hold, and the examples must work once registered — so the page cannot rot.

const ROOT = join(import.meta.dirname, '..', '..');
const DOC = readFileSync(join(ROOT, 'docs', 'architecture.md'), 'utf8');

/** Each `+++ path` part of each diff block of the section: its added (+) and context ( ) lines. */
function diffParts(): Array<{ path: string; added: string[]; shown: string[] }> {
  const section = DOC.slice(DOC.indexOf('## Adding a sampler, an operator, a selector'));
  const blocks = [...section.slice(0, section.indexOf('\n## ', 4)).matchAll(/```diff\n([\s\S]*?)```/g)];
  return blocks.flatMap((b) =>
    b[1]!
      .split(/^\+\+\+ /m)
      .filter((part) => part.trim() !== '')
      .map((part) => {
        const [path, ...lines] = part.replace(/\n$/, '').split('\n');
        return {
          path: path!,
          added: lines.filter((l) => l.startsWith('+')).map((l) => l.slice(1)),
          shown: lines.map((l) => l.slice(1)),
        };
      }),
  );
}

describe('docs/architecture.md: adding a sampler, an operator, a selector', () => {
  it('shows each example as one new file plus one registry line, exactly as the files hold them', () => {
    const parts = diffParts();
    expect(parts.map((p) => p.path)).toEqual([
      'tests/architecture/extend-example/reward-first-sampler.ts',
      'tests/architecture/extend-example/register.ts',
      'tests/architecture/extend-example/trim-text-op.ts',
      'tests/architecture/extend-example/register.ts',
      'tests/architecture/extend-example/stride-selector.ts',
      'tests/architecture/extend-example/register.ts',
    ]);
    for (const p of parts) {
      const file = readFileSync(join(ROOT, p.path), 'utf8');
      if (p.path.endsWith('register.ts')) {
        // An import and one `register` line, shown in the file's order.
        expect(p.added).toHaveLength(2);
        const lines = file.split('\n');
        const at = p.shown.map((l) => lines.indexOf(l));
        expect(
          at.every((i) => i >= 0),
          `${p.path}: ${p.shown.join(' | ')}`,
        ).toBe(true);
        expect([...at].sort((a, b) => a - b)).toEqual(at);
      } else expect(`${p.added.join('\n')}\n`).toBe(file);
    }
  });

  it('once registered on a run, each is named in a config like a built-in and checked at the door', () => {
    const reg = defaultRegistries();
    registerExamples(reg, taskOperatorRegistry());
    const config = parseRftConfig(
      smallRftRaw('extend', {
        selector: { type: 'stride', params: { stride: 3 } },
        buffer: { sampler: 'reward_first' },
      }),
      undefined,
      reg,
    );
    expect(config.selector).toMatchObject({ type: 'stride', params: { stride: 3 } });
    expect(config.buffer.sampler).toMatchObject({ type: 'reward_first' });
    expect(() =>
      parseRftConfig(
        smallRftRaw('extend', { selector: { type: 'stride', params: { stride: 0 } } }),
        undefined,
        reg,
      ),
    ).toThrow(/selector\.params\.stride/);
    // Another run's registries never see them.
    expect(() =>
      parseRftConfig(smallRftRaw('extend', { selector: 'stride' }), undefined, defaultRegistries()),
    ).toThrow(/selector/);
  });

  it('the selector visits every stride-th task, wrapping around', () => {
    const reg = defaultRegistries();
    registerExamples(reg, taskOperatorRegistry());
    const def = reg.selectors.get('stride');
    // stride's create reads the seed only: the rest of a run's build context is not needed here.
    const selector = def.create({ stride: 2 }, { seed: 1 } as Parameters<typeof def.create>[1]);
    const tasks = ['a', 'b', 'c', 'd', 'e'].map((id) => ({ id, taskset: 't', prompt: id }) as Task);
    selector.init(taskViewFromTasks(tasks));
    expect(selector.select(7)).toEqual(['a', 'c', 'e', 'b', 'd', 'a', 'c']);
  });

  it('the sampler delivers the highest reward first, newest first among equals', () => {
    const reg = defaultRegistries();
    registerExamples(reg, taskOperatorRegistry());
    const rewards = [0.5, 1, 0, 1, 0.25];
    const sampler = reg.samplers.get('reward_first').create({}, {
      seed: 1,
    } as Parameters<ReturnType<typeof reg.samplers.get>['create']>[1]);
    const priority = Float64Array.from(rewards, (r) => sampler.priority({ reward: r } as never, 0));
    const view = {
      start: 0,
      end: rewards.length,
      seq: Float64Array.from(rewards, (_, i) => i),
      priority,
      group: Int32Array.from(rewards, (_, i) => i),
      eligible: () => true,
    } as unknown as CandidateView;
    expect(sampler.select(view, 4, { keepGroups: false, rng: new Rng(1) }).slots).toEqual([3, 1, 0, 4]);
    expect(sampler.limits.maxUses).toBe(1);
  });

  it('the operator runs as a task-pipeline step', async () => {
    const operators = taskOperatorRegistry();
    registerExamples(defaultRegistries(), operators);
    const config = parseConfig(taskPipelineConfigSchema(operators), {
      name: 'extend',
      input: { path: 'in.jsonl' },
      mapping: { id: 'id', prompt: 'q', taskset: 't' },
      operators: [{ op: 'trim_text' }],
    });
    const graph = new OperatorGraph<Task>(
      await buildGraph<Task>(config.operators, { registry: operators, baseDir: '.' }),
      {
        seed: 1,
      },
    );
    const out = await graph.process([{ id: 'x', taskset: 't', prompt: '  1+1=  ' } as Task]);
    expect(out.rows.map((t) => t.prompt)).toEqual(['1+1=']);
  });
});
