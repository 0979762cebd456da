import { hashSeed } from '../core/rng.ts';
import type { Task } from '../core/task.ts';
import type { GenerateRequest, Generation, RolloutModel } from '../models/rollout-model.ts';

/** A rollout model that can also sample many prompts in one call (the tiny policy can). */
export interface BatchRolloutModel extends RolloutModel {
  generateBatch(requests: readonly GenerateRequest[]): Promise<Generation[][]>;
}

export function hasGenerateBatch(model: RolloutModel): model is BatchRolloutModel {
  return typeof (model as Partial<BatchRolloutModel>).generateBatch === 'function';
}

export interface AccuracyOptions {
  /** 0 = greedy (default); otherwise sampled at this temperature with per-task seeds. */
  temperature?: number;
  /** Samples per task; accuracy is the mean reward over all of them. */
  samples?: number;
  seed?: number;
  maxTokens?: number;
  /** Requests per generateBatch call. */
  batchSize?: number;
  /** Task → group label for the breakdown (default: meta.domain, else "all"). */
  groupBy?: (task: Task) => string;
  /** Reward of one completion (default: exact match with the answer after trimming). */
  reward?: (response: string, task: Task) => number;
}

export interface AccuracyReport {
  accuracy: number;
  samples: number;
  /** Mean reward per group, with its task count. */
  groups: Record<string, { accuracy: number; tasks: number }>;
  /** Mean reward of each task, in input order. */
  perTask: number[];
}

function defaultReward(response: string, task: Task): number {
  return task.answer !== undefined && response.trim() === task.answer.trim() ? 1 : 0;
}

/**
 * Mean reward of `model` on `tasks`. Deterministic for a fixed seed: task i's requests use
 * seed hash(seed, i), whatever the batching.
 */
export async function evaluateAccuracy(
  model: RolloutModel,
  tasks: readonly Task[],
  options: AccuracyOptions = {},
): Promise<AccuracyReport> {
  const temperature = options.temperature ?? 0;
  const samples = options.samples ?? 1;
  const seed = options.seed ?? 0;
  const batchSize = options.batchSize ?? 256;
  const groupBy =
    options.groupBy ?? ((t: Task) => (typeof t.meta.domain === 'string' ? t.meta.domain : 'all'));
  const reward = options.reward ?? defaultReward;
  const requests: GenerateRequest[] = tasks.map((t, i) => ({
    ...(t.prompt !== undefined ? { prompt: t.prompt } : { messages: t.messages ?? [] }),
    n: samples,
    temperature,
    seed: hashSeed(seed, i),
    ...(options.maxTokens !== undefined ? { maxTokens: options.maxTokens } : {}),
  }));
  const perTask: number[] = [];
  for (let start = 0; start < requests.length; start += batchSize) {
    const chunk = requests.slice(start, start + batchSize);
    const results = hasGenerateBatch(model)
      ? await model.generateBatch(chunk)
      : await Promise.all(chunk.map((r) => model.generate(r)));
    results.forEach((gens, k) => {
      const task = tasks[start + k]!;
      const total = gens.reduce((a, g) => a + reward(g.text, task), 0);
      perTask.push(gens.length > 0 ? total / gens.length : 0);
    });
  }
  const groups: Record<string, { accuracy: number; tasks: number }> = {};
  let sum = 0;
  tasks.forEach((t, i) => {
    const g = groupBy(t);
    const cur = groups[g] ?? { accuracy: 0, tasks: 0 };
    cur.accuracy += perTask[i]!;
    cur.tasks += 1;
    groups[g] = cur;
    sum += perTask[i]!;
  });
  for (const g of Object.values(groups)) g.accuracy = g.tasks > 0 ? g.accuracy / g.tasks : 0;
  return {
    accuracy: tasks.length > 0 ? sum / tasks.length : 0,
    samples: tasks.length * samples,
    groups,
    perTask,
  };
}
