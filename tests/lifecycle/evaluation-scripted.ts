import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { defineModel } from '../../src/explorer/models/model-definition.ts';
import type { RftConfig } from '../../src/lifecycle/run/rft-config.ts';
import { parseRftConfig } from '../../src/lifecycle/run/rft-run.ts';
import { defaultRegistries, type RunRegistries } from '../../src/lifecycle/run/run-registries.ts';
import type { GenerateRequest, Generation } from '../../src/models/rollout-model.ts';
import { defineTrainer } from '../../src/trainer/trainer-definition.ts';

/**
 * A model whose answers are fixed by the prompt: a prompt `q<c> …` gets `yes` (the right answer)
 * for its first c samples and `no` for the rest, whatever the temperature or seed. Scores of a run
 * on such tasks can be worked out by hand.
 */
export const scriptedModel = defineModel({
  name: 'scripted',
  description: 'answers yes to the first c samples of a prompt q<c>, no to the rest',
  params: z.strictObject({}),
  create: () => ({
    description: 'scripted',
    rollout: {
      name: 'scripted',
      async generate(req: GenerateRequest): Promise<Generation[]> {
        const c = Number(/^q(\d+)/.exec(req.prompt ?? '')?.[1] ?? 0);
        return Array.from({ length: req.n }, (_, i) => ({
          text: i < c ? 'yes' : 'no',
          promptTokens: [1, 2],
          tokens: [3],
          logprobs: [],
          finishReason: 'stop' as const,
        }));
      },
    },
  }),
});

/** A trainer that learns nothing: its version counts steps, its loss is the batch size. */
export const countingTrainer = defineTrainer({
  name: 'counting',
  description: 'counts steps',
  params: z.strictObject({}),
  create: () => {
    let version = 0;
    return {
      name: 'counting',
      get version() {
        return version;
      },
      async step(batch) {
        version++;
        return { loss: batch.length };
      },
      async save(dir) {
        mkdirSync(dir, { recursive: true });
        writeFileSync(join(dir, 'version.json'), JSON.stringify(version));
      },
      async load(dir) {
        version = JSON.parse(readFileSync(join(dir, 'version.json'), 'utf8')) as number;
      },
    };
  },
});

export function scriptedRegistries(): RunRegistries {
  const reg = defaultRegistries();
  reg.models.register(scriptedModel as never);
  reg.trainers.register(countingTrainer as never);
  return reg;
}

const mapping = (taskset: string) => ({ taskset, id: 'id', prompt: 'prompt', answer: 'answer' });

/** Write a task file of prompts `q<c> <id>` (answer `yes`), one per entry of `correct`. */
export function writeTasks(file: string, ids: string[], correct: number[]): string {
  const lines = ids.map((id, i) => JSON.stringify({ id, prompt: `q${correct[i]} ${id}`, answer: 'yes' }));
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

/**
 * A run on the scripted model: training tasks a (2 of 4 right), b (4 of 4), c (0 of 4), all three
 * every step (sequential selector), and two evaluation sets with k = 4: alpha (0, 1, 2 and 4 right
 * of 4) and beta (0, 0 and 3 right of 4).
 */
export function scriptedConfig(dir: string, name: string, over: Record<string, unknown> = {}): RftConfig {
  const train = writeTasks(join(dir, `${name}-train.jsonl`), ['a', 'b', 'c'], [2, 4, 0]);
  const alpha = writeTasks(join(dir, `${name}-alpha.jsonl`), ['a0', 'a1', 'a2', 'a4'], [0, 1, 2, 4]);
  const beta = writeTasks(join(dir, `${name}-beta.jsonl`), ['b0', 'b1', 'b3'], [0, 0, 3]);
  return parseRftConfig(
    {
      name,
      kind: 'rft',
      seed: 7,
      tasks: { path: train, mapping: mapping('train') },
      evaluation: {
        every: 2,
        sets: [
          { name: 'alpha', source: { path: alpha, mapping: mapping('alpha') }, k: 4 },
          { name: 'beta', source: { path: beta, mapping: mapping('beta') }, k: 4, temperature: 0.7 },
        ],
      },
      selector: { type: 'sequential' },
      explorer: { model: { type: 'scripted' }, reward: 'exact_match', repeat: 4, batchTasks: 3 },
      experienceOps: [
        { op: 'invalid_reward' },
        { op: 'reward_std_filter' },
        { op: 'grpo', params: { stdNormalize: false, rankPenalty: 0.5 } },
      ],
      trainer: { type: 'counting' },
      lifecycle: { mode: 'explore', steps: 4, checkpointEvery: 2 },
      monitors: ['html_report', 'metrics_csv'],
      ...over,
    },
    undefined,
    scriptedRegistries(),
  );
}

/** metrics.jsonl of a run folder, one object per line. */
export function readMetrics(runDir: string): Array<Record<string, unknown>> {
  return readFileSync(join(runDir, 'metrics.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}
