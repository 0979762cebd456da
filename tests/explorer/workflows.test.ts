import { describe, expect, it } from 'vitest';
import { Rng } from '../../src/core/rng.ts';
import type { Task } from '../../src/core/task.ts';
import { Explorer } from '../../src/explorer/explorer.ts';
import type { WorkflowContext } from '../../src/explorer/workflow.ts';
import { multiTurnWorkflow } from '../../src/explorer/workflows/multi-turn.ts';
import { singleTurnWorkflow } from '../../src/explorer/workflows/single-turn.ts';
import type { GenerateRequest, Generation, RolloutModel } from '../../src/models/rollout-model.ts';

/** A model over a toy vocabulary: one token per character code; answers "a<turn>" to each turn. */
class EchoModel implements RolloutModel {
  readonly name = 'echo';
  calls: GenerateRequest[] = [];
  async generate(req: GenerateRequest): Promise<Generation[]> {
    this.calls.push(req);
    const text = req.messages
      ? req.messages.map((m) => `${m.role[0]}:${m.content}`).join('|')
      : (req.prompt ?? '');
    const promptTokens = [...text].map((c) => c.charCodeAt(0));
    const turn = req.messages ? req.messages.filter((m) => m.role === 'assistant').length : 0;
    return Array.from({ length: req.n }, (_, i) => {
      const answer = `a${turn}${i}`;
      return {
        text: answer,
        promptTokens,
        tokens: [...answer].map((c) => c.charCodeAt(0)),
        logprobs: [...answer].map(() => -0.5),
        finishReason: 'stop' as const,
      };
    });
  }
}

const ctx = (over: Partial<WorkflowContext> = {}): WorkflowContext => ({
  repeat: 2,
  exploreStep: 3,
  modelVersion: 1,
  reward: ({ response }) => ({ reward: response.endsWith('0') ? 1 : 0 }),
  maxTokens: 8,
  temperature: 1,
  seed: 11,
  rng: new Rng(11),
  ...over,
});

describe('workflows', () => {
  it('multi_turn answers each user turn in order and concatenates turns with environment tokens masked out', async () => {
    const task: Task = {
      id: 't1',
      taskset: 'chat',
      messages: [
        { role: 'system', content: 'S' },
        { role: 'user', content: 'Q1' },
        { role: 'assistant', content: 'ignored' },
        { role: 'user', content: 'Q2' },
      ],
      features: {},
      meta: {},
    };
    const model = new EchoModel();
    const exps = await multiTurnWorkflow.run(task, model, ctx({ repeat: 1 }));
    expect(exps).toHaveLength(1);
    const e = exps[0]!;
    expect(model.calls.map((c) => c.messages!.map((m) => `${m.role}:${m.content}`))).toEqual([
      ['system:S', 'user:Q1'],
      ['system:S', 'user:Q1', 'assistant:a00', 'user:Q2'],
    ]);
    expect(e.messages!.map((m) => m.content)).toEqual(['S', 'Q1', 'a00', 'Q2', 'a10']);
    expect(e.response).toBe('a00\na10');
    const first = 's:S|u:Q1';
    const second = 's:S|u:Q1|a:a00|u:Q2';
    // tokens = first prompt + answer 1 + the part of the second prompt beyond what was held + answer 2
    const held = first.length + 3;
    expect(e.promptLength).toBe(first.length);
    expect(e.tokens).toHaveLength(held + (second.length - held) + 3);
    // The mask covers the response part only (the first prompt is not in it).
    expect(e.actionMask).toHaveLength(e.tokens.length - e.promptLength);
    expect(e.actionMask).toEqual([1, 1, 1, ...Array(second.length - held).fill(0), 1, 1, 1]);
    expect(e.logprobs).toHaveLength(e.tokens.length - e.promptLength);
    expect(e.logprobs.filter((x) => x !== 0)).toEqual(Array(6).fill(-0.5));
    expect(e.reward).toBe(1);
    expect(e.info.turns).toBe(2);
    expect(e.id).toBe('s3:t1#0');
  });

  it('single_turn makes one group of `repeat` scored experiences with the response masked in', async () => {
    const task: Task = { id: 't2', taskset: 'x', prompt: 'P', answer: 'a00', features: {}, meta: {} };
    const exps = await singleTurnWorkflow.run(task, new EchoModel(), ctx());
    expect(exps.map((e) => [e.id, e.groupId, e.runIndex, e.response, e.reward])).toEqual([
      ['s3:t2#0', 's3:t2', 0, 'a00', 1],
      ['s3:t2#1', 's3:t2', 1, 'a01', 0],
    ]);
    expect(exps[0]!.actionMask).toEqual([1, 1, 1]);
    expect(exps[0]!.tokens).toHaveLength(4);
    expect(exps[0]!.promptLength).toBe(1);
  });

  it('rewards see the response token ids (for length-aware rewards such as dapo)', async () => {
    const task: Task = { id: 't3', taskset: 'x', prompt: 'P', answer: 'a00', features: {}, meta: {} };
    const seen: Array<readonly number[] | undefined> = [];
    const reward: WorkflowContext['reward'] = ({ responseTokens }) => {
      seen.push(responseTokens);
      return { reward: 0 };
    };
    await singleTurnWorkflow.run(task, new EchoModel(), ctx({ reward }));
    const multi: Task = { ...task, prompt: undefined, messages: [{ role: 'user', content: 'Q' }] };
    await multiTurnWorkflow.run(multi, new EchoModel(), ctx({ reward, repeat: 1 }));
    expect(seen).toEqual([
      [97, 48, 48],
      [97, 48, 49],
      [97, 48, 48],
    ]);
  });

  it('the explorer records a failing task and goes on with the others (retries with backoff)', async () => {
    let calls = 0;
    const flaky: RolloutModel = {
      name: 'flaky',
      async generate(req) {
        calls++;
        if (req.prompt === 'bad') throw new Error('server said 500');
        return new EchoModel().generate(req);
      },
    };
    const explorer = new Explorer({
      workflow: singleTurnWorkflow,
      model: flaky,
      reward: () => ({ reward: 0 }),
      repeat: 2,
      maxTokens: 4,
      temperature: 1,
      concurrency: 2,
      timeoutMs: 1000,
      retries: 2,
      backoffMs: 1,
      seed: 1,
    });
    const tasks: Task[] = ['ok1', 'bad', 'ok2'].map((p) => ({
      id: p,
      taskset: 'x',
      prompt: p,
      features: {},
      meta: {},
    }));
    const r = await explorer.explore(tasks, 1, 0);
    expect(r.experiences.map((e) => e.taskId)).toEqual(['ok1', 'ok1', 'ok2', 'ok2']);
    expect(r.failures).toEqual([
      { taskId: 'bad', groupId: 's1:bad', kind: 'error', reason: 'server said 500', attempts: 3 },
    ]);
    expect(calls).toBe(2 + 3);
    expect(r.metrics.retries).toBe(2);
  });
});
