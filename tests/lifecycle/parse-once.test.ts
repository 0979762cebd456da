import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { parseConfig } from '../../src/core/config.ts';
import { Registry } from '../../src/core/registry.ts';
import type { Task } from '../../src/core/task.ts';
import { runTaskPipeline } from '../../src/lifecycle/pipeline/task-pipeline.ts';
import { taskPipelineConfigSchema } from '../../src/lifecycle/pipeline/task-pipeline-config.ts';
import { parseRftConfig, runRft } from '../../src/lifecycle/run/rft-run.ts';
import { defaultRegistries } from '../../src/lifecycle/run/run-registries.ts';
import type { TaskOperatorDefinition } from '../../src/operators/registries.ts';
import { taskOperatorRegistry } from '../../src/operators/registries.ts';
import { nearDedupOp } from '../../src/operators/task/near-dedup.ts';
import { NearDedupSigner } from '../../src/operators/task/near-dedup-signer.ts';
import type { ChainSetup } from '../../src/pipeline-workers/chain-messages.ts';
import { buildWorkerChain } from '../../src/pipeline-workers/chain-setup.ts';
import { planRowWise } from '../../src/pipeline-workers/row-wise-plan.ts';
import { PolicyGradientConfigSchema } from '../../src/tiny/pg-config.ts';
import { REPO_ROOT } from '../helpers/cli.ts';
import { smallRftRaw } from '../helpers/rft.ts';
import { tempDir } from '../helpers/tmp.ts';

const dir = tempDir('winnow-parse-once-');

/** How often each wrapped params schema was parsed. */
const parses = new Map<string, number>();
function counted<D extends { name: string; params: unknown }>(def: D, name: string): D {
  parses.set(name, 0);
  const params = z.preprocess((v) => {
    parses.set(name, (parses.get(name) ?? 0) + 1);
    return v;
  }, def.params as z.ZodType);
  return { ...def, name, params };
}

describe('each params schema is parsed once per run (the door), never again by the parts', () => {
  it('an RFT run: selector nested in mixed, model, workflow, reward, experience operator, sampler, remover, strategy, trainer', async () => {
    const reg = defaultRegistries();
    reg.selectors.register(counted(reg.selectors.get('sequential'), 'c_sequential'));
    reg.models.register(counted(reg.models.get('tiny'), 'c_tiny'));
    reg.workflows.register(counted(reg.workflows.get('single_turn'), 'c_single_turn'));
    reg.rewards.register(counted(reg.rewards.get('exact_match'), 'c_exact_match'));
    reg.experienceOps.register(counted(reg.experienceOps.get('grpo'), 'c_grpo'));
    reg.samplers.register(counted(reg.samplers.get('fifo'), 'c_fifo'));
    reg.removers.register(counted(reg.removers.get('oldest'), 'c_oldest'));
    reg.strategies.register(counted(reg.strategies.get('default'), 'c_default'));
    reg.trainers.register(counted(reg.trainers.get('policy_gradient'), 'c_policy_gradient'));
    const raw = smallRftRaw('parse-once', {
      selector: {
        type: 'mixed',
        params: { tasksets: [{ taskset: 'arithmetic', selector: { type: 'c_sequential' } }] },
      },
      explorer: {
        model: { type: 'c_tiny', params: { path: 'datasets/arithmetic/warm-start' } },
        workflow: { type: 'c_single_turn' },
        reward: { type: 'c_exact_match' },
        repeat: 4,
        batchTasks: 4,
      },
      experienceOps: [{ op: 'invalid_reward' }, { op: 'c_grpo' }],
      buffer: { sampler: { type: 'c_fifo' }, remover: { type: 'c_oldest' }, capacity: 1000 },
      sampling: { type: 'c_default' },
      trainer: { type: 'c_policy_gradient', params: { lr: 0.001 } },
      lifecycle: { mode: 'sync', steps: 2, checkpointEvery: 1 },
    });
    const config = parseRftConfig(raw, undefined, reg);
    // The trainer's own config schema is the definition's: nothing parses it again after the door.
    const trainerParses = vi.spyOn(PolicyGradientConfigSchema, 'safeParse');
    const report = await runRft(config, {
      baseDir: REPO_ROOT,
      dbDir: join(dir, 'rft-db'),
      runDir: join(dir, 'rft-run'),
      registries: reg,
    });
    expect(report.steps).toBe(2);
    expect(trainerParses).not.toHaveBeenCalled();
    trainerParses.mockRestore();
    expect(report.describe.buffer).toContain('sampler c_fifo');
    expect(Object.fromEntries([...parses].filter(([k]) => k.startsWith('c_')))).toEqual({
      c_sequential: 1,
      c_tiny: 1,
      c_single_turn: 1,
      c_exact_match: 1,
      c_grpo: 1,
      c_fifo: 1,
      c_oldest: 1,
      c_default: 1,
      c_policy_gradient: 1,
    });
  }, 240_000);

  it("a task pipeline: an operator's params (near_dedup's threshold) are parsed at the door only", async () => {
    const registry = taskOperatorRegistry();
    registry.register(counted(registry.get('near_dedup'), 'p_near_dedup'));
    registry.register(counted(registry.get('length_filter'), 'p_length_filter'));
    const input = join(dir, 'in.jsonl');
    writeFileSync(
      input,
      ['what is 1+1', 'what is 1+1 ?', 'name a prime', 'x']
        .map((q, i) => JSON.stringify({ id: `r${i}`, q, a: '2' }))
        .join('\n'),
    );
    const config = parseConfig(taskPipelineConfigSchema(registry), {
      name: 'parse-once',
      input: { path: input },
      mapping: { id: 'id', prompt: 'q', answer: 'a', taskset: 't' },
      operators: [
        { op: 'p_length_filter', params: { minChars: 2 } },
        { op: 'p_near_dedup', params: { threshold: 0.5 } },
      ],
      output: { maxRejectedShare: 1, report: false },
    });
    const report = await runTaskPipeline(config, {
      baseDir: dir,
      dbDir: join(dir, 'tp-db'),
      runsDir: join(dir, 'tp-runs'),
      registry,
    });
    const ops = report.steps.filter((s) => s.step.startsWith('p_'));
    expect(ops.map((s) => [s.step, s.rowsIn, s.rowsOut])).toEqual([
      ['p_length_filter', 4, 3],
      ['p_near_dedup', 3, 2],
    ]);
    expect(parses.get('p_near_dedup')).toBe(1);
    expect(parses.get('p_length_filter')).toBe(1);
  }, 120_000);

  it('a run with workers: steps and dedup params go to workers parsed, and the worker parses nothing again', async () => {
    const registry = taskOperatorRegistry();
    const config = parseConfig(taskPipelineConfigSchema(registry), {
      name: 'parse-once-workers',
      input: { path: join(dir, 'in.jsonl') },
      mapping: { id: 'id', prompt: 'q', answer: 'a', taskset: 't' },
      workers: 2,
      operators: [
        { op: 'length_filter', params: { minChars: 2 } },
        { op: 'near_dedup', params: { threshold: 0.5 } },
      ],
    });
    const plan = planRowWise(config.operators, registry);
    // What the door parsed goes as it is: defaults filled, nothing left for the worker to fill.
    expect(plan.workerSteps).toEqual([
      { op: 'length_filter', params: { minChars: 2, field: 'prompt', wordSplit: 'segmenter' } },
    ]);
    expect(plan.workerSteps[0]).toBe(config.operators[0]);
    expect(plan.nearDedupParams).toEqual({
      field: 'prompt',
      tokenizer: 'char',
      permutations: 128,
      bands: 16,
      verify: true,
      threshold: 0.5,
      lowercase: true,
      seed: 1,
    });
    // The worker's side, as chain-worker.ts runs it, on a structured clone of its setup and with
    // every operator's params schema counted: it builds the same chain and parses nothing.
    const setup: ChainSetup = structuredClone({
      steps: plan.workerSteps,
      seed: 3,
      runId: 'w',
      baseDir: dir,
      mapping: config.mapping,
      nearDedupParams: plan.nearDedupParams,
      exactDedupParams: plan.exactDedupParams,
    });
    const counting = new Registry<TaskOperatorDefinition>('task operator');
    for (const d of registry.all()) counting.register(counted(d, d.name));
    const chain = await buildWorkerChain(setup, counting, () => undefined);
    expect(
      registry
        .all()
        .filter((d) => (parses.get(d.name) ?? 0) > 0)
        .map((d) => d.name),
    ).toEqual([]);
    expect(chain.signer?.key).toBe(new NearDedupSigner(nearDedupOp.params.parse({ threshold: 0.5 })).key);
    expect(chain.keyer).toBeNull();
    const tasks = ['what is 1+1', 'x', 'name a prime'].map((prompt, i) => ({
      id: `t${i}`,
      taskset: 't',
      prompt,
      answer: '2',
    })) as Task[];
    const out = await chain.graph.process(tasks);
    expect(out.rows.map((t) => t.id)).toEqual(['t0', 't2']);
    expect(out.rejected.map((r) => [r.row.id, r.reason])).toEqual([
      ['t1', 'too short: 1 chars < minChars 2'],
    ]);
  });
});
