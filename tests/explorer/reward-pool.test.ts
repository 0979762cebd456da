import { afterAll, describe, expect, it } from 'vitest';
import type { Task } from '../../src/core/task.ts';
import { Explorer } from '../../src/explorer/explorer.ts';
import { createReward } from '../../src/explorer/rewards/registry.ts';
import { singleTurnWorkflow } from '../../src/explorer/workflows/single-turn.ts';
import type { GenerateRequest, Generation, RolloutModel } from '../../src/models/rollout-model.ts';
import { sharedJudgePool } from '../../src/verify/judge-pool.ts';

// The test-only slow operation of the judgement worker: a response holding \winnowTestSpin spins forever.
process.env.WINNOW_JUDGE_TEST_SPIN = '1';
afterAll(() => sharedJudgePool().close());

/** Answers from a fixed list per prompt: run index i gets answers[i] (both the batched and the plain path). */
class ListModel implements RolloutModel {
  readonly name = 'list';
  private readonly answers: Record<string, string[]>;
  constructor(answers: Record<string, string[]>) {
    this.answers = answers;
  }
  private gens(req: GenerateRequest): Generation[] {
    return this.answers[req.prompt ?? '']!.slice(0, req.n).map((text) => ({
      text,
      promptTokens: [1],
      tokens: [...text].map((c) => c.charCodeAt(0) % 50),
      logprobs: [...text].map(() => -0.1),
      finishReason: 'stop' as const,
    }));
  }
  async generate(req: GenerateRequest): Promise<Generation[]> {
    return this.gens(req);
  }
  async generateBatch(reqs: GenerateRequest[]): Promise<Generation[][]> {
    return reqs.map((r) => this.gens(r));
  }
}

const task = (id: string, answer: string): Task => ({
  id,
  taskset: 'm',
  prompt: id,
  answer,
  features: {},
  meta: {},
});

describe('the explorer and the math reward on the judgement pool', () => {
  it('a step whose rewards include one that never ends: every verdict in rollout order, this thread responsive', async () => {
    const model = new ListModel({
      p1: ['$\\boxed{\\frac{1}{2}}$', '$\\boxed{0.5}$', '$\\boxed{x\\winnowTestSpin}$', '$\\boxed{1/3}$'],
      p2: ['$\\boxed{(x+1)^2}$', '$\\boxed{x^2+2x+1}$', '$\\boxed{x^2+1}$', '\\boxed{7}'],
    });
    const reward = await createReward({ type: 'math', params: { timeLimitMs: 300 } }, { baseDir: '.' });
    const explorer = new Explorer({
      workflow: singleTurnWorkflow,
      model,
      reward,
      repeat: 4,
      maxTokens: 8,
      temperature: 1,
      concurrency: 2,
      timeoutMs: 600_000,
      retries: 0,
      backoffMs: 1,
      seed: 1,
    });
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    try {
      const r = await explorer.explore([task('p1', '\\frac12'), task('p2', 'x^2+2x+1')], 0, 0);
      expect(r.metrics.batched).toBe(2);
      expect(r.experiences.map((e) => [e.taskId, e.runIndex, e.reward, e.info.reason])).toEqual([
        ['p1', 0, 1, 'equal'],
        ['p1', 1, 1, 'equal'],
        ['p1', 2, 0, 'timeout'],
        ['p1', 3, 0, 'not_equal'],
        ['p2', 0, 1, 'equal'],
        ['p2', 1, 1, 'equal'],
        ['p2', 2, 0, 'not_equal'],
        ['p2', 3, 0, 'not_equal'],
      ]);
      // The timer kept firing while a judgement spun on a worker.
      expect(ticks).toBeGreaterThan(0);
    } finally {
      clearInterval(timer);
    }
  });
});
