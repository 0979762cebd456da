import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServeRun, startServe } from '../../src/serve/serve-start.ts';
import { tempDir } from '../helpers/tmp.ts';
import { call, serveConfig } from './helpers.ts';

interface Sel {
  step: number;
  taskIds: string[];
  repeated?: true;
}
interface Fed {
  step: number;
  rewards: number;
  selectStep?: number;
  repeated?: true;
}
interface Pending {
  selectSteps: number;
  feedbackSteps: number;
  pending: Array<Sel & { requestId?: string }>;
}

const post = async <T>(url: string, path: string, body: unknown) => {
  const r = await call(url, 'POST', path, { body });
  return { status: r.status, json: r.json as T };
};

/** The routes the Python adapters rely on: request ids, pending selections, rewards by name. */
describe('winnow serve: request ids, pending selections, rewards by name', () => {
  const dir = tempDir('winnow-serve-adapter-');
  let run: ServeRun;
  let url: string;

  beforeAll(async () => {
    run = await startServe({
      configFile: serveConfig(dir),
      host: '127.0.0.1',
      port: 0,
      log: () => undefined,
    });
    url = run.url;
  }, 60_000);
  afterAll(async () => {
    await run?.stop('test done');
  });

  it('a select retried with its request id gets the same answer and selects nothing new', async () => {
    const first = await post<Sel>(url, '/v1/select', { n: 3, requestId: 'sel-1' });
    const again = await post<Sel>(url, '/v1/select', { n: 3, requestId: 'sel-1' });
    expect(first.json.step).toBe(1);
    expect(again.json).toEqual({ ...first.json, repeated: true });
    const p = (await call(url, 'GET', '/v1/pending')).json as Pending;
    expect(p.selectSteps).toBe(1);
    expect(p.pending.map((s) => [s.step, s.taskIds, s.requestId])).toEqual([
      [1, first.json.taskIds, 'sel-1'],
    ]);
  });

  it('feedback for a step is applied once: a repeat by step or request id is recognised', async () => {
    const p = (await call(url, 'GET', '/v1/pending')).json as Pending;
    const results = p.pending[0]!.taskIds.map((taskId) => ({ taskId, rewards: [1, 0] }));
    const before = (await call(url, 'GET', '/v1/health')).json as { revision: number };
    const fed = await post<Fed>(url, '/v1/feedback', { results, step: 1, requestId: 'fb-1' });
    expect([fed.status, fed.json.step, fed.json.rewards, fed.json.selectStep]).toEqual([200, 1, 6, 1]);
    const byId = await post<Fed>(url, '/v1/feedback', { results, requestId: 'fb-1' });
    const byStep = await post<Fed>(url, '/v1/feedback', { results, step: 1 });
    expect(byId.json).toEqual({ ...fed.json, repeated: true });
    expect(byStep.json).toEqual({ ...fed.json, repeated: true });
    const after = (await call(url, 'GET', '/v1/health')).json as { revision: number };
    expect(after.revision).toBe(before.revision + 1);
    const m = (await call(url, 'GET', '/v1/metrics')).json as {
      feedbackSteps: number;
      selector: { rewards: number };
    };
    expect(m.feedbackSteps).toBe(1);
    expect(((await call(url, 'GET', '/v1/pending')).json as Pending).pending).toEqual([]);
  });

  it('feedback for a step never selected is a 400 naming step', async () => {
    const r = await call(url, 'POST', '/v1/feedback', {
      body: { results: [{ taskId: 'x', passRate: 1 }], step: 99 },
    });
    expect(r.status).toBe(400);
  });

  it('the pending selection and the request log survive a restart (--resume)', async () => {
    const sel = await post<Sel>(url, '/v1/select', { n: 2, requestId: 'sel-2' });
    await run.stop('restart');
    run = await startServe({
      configFile: serveConfig(dir),
      host: '127.0.0.1',
      port: 0,
      resume: true,
      log: () => undefined,
    });
    url = run.url;
    const p = (await call(url, 'GET', '/v1/pending')).json as Pending;
    expect(p.pending.map((s) => [s.step, s.taskIds])).toEqual([[2, sel.json.taskIds]]);
    const again = await post<Sel>(url, '/v1/select', { n: 2, requestId: 'sel-2' });
    expect(again.json).toEqual({ ...sel.json, repeated: true });
  }, 60_000);

  it('POST /v1/rewards scores by name against a given answer or a run task', async () => {
    const r = await post<{ reward: string; rewards: (number | null)[] }>(url, '/v1/rewards', {
      reward: 'math',
      items: [
        { response: 'so the answer is \\boxed{72}', answer: '#### 72' },
        { response: 'The answer is 71.', answer: '72' },
        { response: 'no idea', answer: '' },
      ],
    });
    expect([r.status, r.json.reward, r.json.rewards]).toEqual([200, 'math', [1, 0, null]]);
    const p = (await call(url, 'GET', '/v1/pending')).json as Pending & {
      pending: Array<{ tasks: Array<{ id: string; answer: string }> }>;
    };
    const task = p.pending[0]!.tasks[0]!;
    const t = await post<{ rewards: number[] }>(url, '/v1/rewards', {
      reward: { type: 'math' },
      items: [
        { taskId: task.id, response: `The answer is ${task.answer}.` },
        { taskId: task.id, response: `The answer is ${Number(task.answer) + 1}.` },
      ],
    });
    expect(t.json.rewards).toEqual([1, 0]);
  });

  it('an unknown reward is a 400 listing the built-in ones; a module is refused', async () => {
    const r = await call(url, 'POST', '/v1/rewards', {
      body: { reward: 'maths', items: [{ response: 'x', answer: '1' }] },
    });
    expect(r.status).toBe(400);
    expect(JSON.stringify(r.json)).toContain('built-in rewards: countdown, dapo, exact_match, format, math');
    const m = await call(url, 'POST', '/v1/rewards', {
      body: { reward: { module: './x.ts', export: 'f' }, items: [{ response: 'x', answer: '1' }] },
    });
    expect(m.status).toBe(400);
  });
});
