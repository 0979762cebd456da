import { tableFromIPC } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSelector } from '../../src/selectors/registry.ts';
import { taskViewFromTasks } from '../../src/selectors/task-view.ts';
import { type ServeRun, startServe } from '../../src/serve/serve-start.ts';
import { RejectedStore } from '../../src/store/rejected-store.ts';
import { TRAIN_BATCH_SCHEMA } from '../../src/trainer/external/batch.ts';
import { tempDir } from '../helpers/tmp.ts';
import { BOTS_PARAMS, call, referenceTasks, serveConfig } from './helpers.ts';

describe('winnow serve routes over real HTTP (real LanceDB in a temp folder)', () => {
  const dir = tempDir('winnow-serve-routes-');
  let run: ServeRun;
  let url: string;
  const log: string[] = [];
  // The run's first selection, as an in-process BOTS selector with the same seed makes it.
  const reference = createSelector(
    { type: 'bots', params: BOTS_PARAMS },
    taskViewFromTasks(referenceTasks()),
    7,
  );
  let ids: string[] = [];

  beforeAll(async () => {
    run = await startServe({
      configFile: serveConfig(dir),
      host: '127.0.0.1',
      port: 0,
      winnowVersion: '9.9.9',
      log: (l) => log.push(l),
    });
    url = run.url;
  }, 60_000);
  afterAll(async () => {
    await run?.stop('test done');
  });

  it('binds 127.0.0.1 and logs where the run lives', () => {
    expect(run.host).toBe('127.0.0.1');
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(log).toContain(`database: ${dir}/db`);
    expect(log).toContain(`run folder: ${dir}/runs/serve-test-1`);
  });

  it('GET /v1/health and /v1/version', async () => {
    const h = await call(url, 'GET', '/v1/health');
    expect([h.status, h.json]).toEqual([200, { status: 'ok', runId: 'serve-test-1', revision: 0 }]);
    const v = await call(url, 'GET', '/v1/version');
    expect([v.status, v.json]).toEqual([200, { winnow: '9.9.9', api: 1, selector: 'bots' }]);
  });

  it('POST /v1/select returns the selector’s ids and the task rows', async () => {
    const r = await call(url, 'POST', '/v1/select', { body: { n: 3 } });
    expect(r.status).toBe(200);
    const body = r.json as { step: number; taskIds: string[]; tasks: Array<{ id: string; prompt: string }> };
    const expected = reference.select(3, { step: 1 });
    expect(body.step).toBe(1);
    expect(body.taskIds).toEqual(expected);
    expect(body.tasks.map((t) => t.id)).toEqual(expected);
    const byId = new Map(referenceTasks().map((t) => [t.id, t]));
    expect(body.tasks.map((t) => t.prompt)).toEqual(expected.map((id) => byId.get(id)!.prompt));
    ids = body.taskIds;
  });

  it('POST /v1/feedback feeds the selector (null is an invalid reward) and reports what it used', async () => {
    const r = await call(url, 'POST', '/v1/feedback', {
      body: {
        results: [
          { taskId: ids[0], rewards: [1, 0, 1, null] },
          { taskId: ids[1], passRate: 0.25, count: 4 },
        ],
      },
    });
    expect([r.status, r.json]).toEqual([
      200,
      {
        step: 1,
        groups: 2,
        rewards: 7,
        mixedGroups: 1,
        clippedRewards: 0,
        droppedRewards: 1,
        warnings: ['1 non-finite reward(s) left out'],
        selectStep: 1,
      },
    ]);
    const ref = reference.feedback(
      [
        { taskId: ids[0]!, rewards: [1, 0, 1, Number.NaN] },
        { taskId: ids[1]!, rewards: [0.25, 0.25, 0.25, 0.25] },
      ],
      { step: 1 },
    );
    expect(ref.groups).toBe(2);
  });

  it('POST /v1/experiences fills defaults, runs the experience operators and records drops', async () => {
    const r = await call(url, 'POST', '/v1/experiences', {
      body: {
        experiences: [
          {
            taskId: ids[0],
            response: '13',
            reward: 1,
            tokens: [5, 6, 7, 8, 9],
            promptLength: 2,
            logprobs: [-0.5, -0.25, -1],
          },
          { taskId: ids[0], response: '12', reward: 0, tokens: [5, 6, 7], promptLength: 2, actionMask: [1] },
          { taskId: ids[0], response: '??', reward: null },
        ],
      },
    });
    expect(r.status).toBe(200);
    const body = r.json as {
      received: number;
      kept: number;
      bufferSize: number;
      dropped: Array<Record<string, string>>;
    };
    expect({ ...body, dropped: body.dropped.map((d) => [d.id, d.step]) }).toEqual({
      received: 3,
      kept: 2,
      bufferSize: 2,
      dropped: [[`s1:${ids[0]}#2`, 'exp:invalid_reward']],
    });
    const rejected = await (await RejectedStore.open(`${dir}/db`)).read({ runId: 'serve-test-1' });
    expect(rejected.map((x) => [x.rowId, x.step])).toEqual([[`s1:${ids[0]}#2`, 'serve:exp:invalid_reward']]);
  });

  it('POST /v1/sample leases a JSON batch in the response layout; the same request is idempotent on ids', async () => {
    const again = await call(url, 'POST', '/v1/experiences', {
      body: { experiences: [{ taskId: ids[0], response: '13', reward: 1, runIndex: 0 }] },
    });
    expect((again.json as { bufferSize: number }).bufferSize).toBe(2);
    const r = await call(url, 'POST', '/v1/sample', { body: { n: 4 } });
    expect(r.status).toBe(200);
    const b = r.json as {
      lease: number;
      weights: number[];
      skipped: number;
      experiences: Array<Record<string, unknown>>;
    };
    expect(b.lease).toBe(1);
    expect(b.weights).toEqual([1, 1]);
    expect(b.skipped).toBe(0);
    const rows = b.experiences.map((e) => [
      e.id,
      e.groupId,
      e.runIndex,
      e.exploreStep,
      e.reward,
      e.tokens,
      e.promptLength,
    ]);
    expect(rows).toEqual([
      [`s1:${ids[0]}#0`, `s1:${ids[0]}`, 0, 1, 1, [5, 6, 7, 8, 9], 2],
      [`s1:${ids[0]}#1`, `s1:${ids[0]}`, 1, 1, 0, [5, 6, 7], 2],
    ]);
    expect(b.experiences[0]!.logprobs).toEqual([-0.5, -0.25, -1]);
    expect(b.experiences[1]!.actionMask).toEqual([1]);
    // grpo over the kept group (rewards 1, 0) with Trinity's default sample std (√0.5): ±0.5/√0.5.
    expect((b.experiences[0]!.advantage as number).toFixed(4)).toBe('0.7071');
    expect((b.experiences[1]!.advantage as number).toFixed(4)).toBe('-0.7071');
    expect(b.experiences.map((e) => e.taskset)).toEqual(['arithmetic', 'arithmetic']);
  });

  it('POST /v1/sample with Accept: Arrow IPC returns a stream with the lease in a header and the schema', async () => {
    // FIFO hands out each row once per use budget: write a fresh group for this batch.
    await call(url, 'POST', '/v1/experiences', {
      body: {
        experiences: [
          {
            taskId: ids[1],
            response: 'a',
            reward: 1,
            tokens: [1, 2, 3],
            promptLength: 1,
            logprobs: [-1, -2],
          },
          { taskId: ids[1], response: 'b', reward: 0, tokens: [1, 4], promptLength: 1, logprobs: [-3] },
        ],
      },
    });
    const r = await call(url, 'POST', '/v1/sample', {
      body: { n: 2 },
      headers: { Accept: 'application/vnd.apache.arrow.stream' },
    });
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('application/vnd.apache.arrow.stream');
    expect(r.headers['winnow-lease']).toBe('2');
    const t = tableFromIPC(r.body);
    // The external trainers' batch columns (src/trainer/external/batch.ts) plus the importance weight.
    expect(t.schema.fields.map((f) => f.name)).toEqual([
      ...TRAIN_BATCH_SCHEMA.fields.map((f) => f.name),
      'weight',
    ]);
    expect(TRAIN_BATCH_SCHEMA.fields.map((f) => f.name).slice(0, 4)).toEqual([
      'id',
      'task_id',
      'group_id',
      'run_index',
    ]);
    expect(t.schema.metadata.get('winnow.lease')).toBe('2');
    expect(t.numRows).toBe(2);
    expect(t.getChild('id')!.toArray()).toEqual([`s1:${ids[1]}#0`, `s1:${ids[1]}#1`]);
    expect([...t.getChild('tokens')!.get(0)!]).toEqual([1, 2, 3]);
    expect([...t.getChild('logprobs')!.get(1)!]).toEqual([-3]);
    expect(t.getChild('reward')!.toArray()).toEqual(new Float64Array([1, 0]));
    expect(t.getChild('weight')!.toArray()).toEqual(new Float64Array([1, 1]));
    // No mask was written: every response token is trained on, sent as ones.
    expect([...t.getChild('action_mask')!.get(0)!]).toEqual([1, 1]);
  });

  it('POST /v1/ack is cumulative and idempotent; GET /v1/metrics counts everything', async () => {
    const a = await call(url, 'POST', '/v1/ack', { body: { lease: 2 } });
    expect([a.status, a.json]).toEqual([200, { lease: 2, acknowledgedThrough: 2 }]);
    const again = await call(url, 'POST', '/v1/ack', { body: { lease: 1 } });
    expect(again.json).toEqual({ lease: 1, acknowledgedThrough: 2 });
    const m = (await call(url, 'GET', '/v1/metrics')).json as Record<string, unknown>;
    expect({ ...m, selector: undefined }).toEqual({
      runId: 'serve-test-1',
      revision: 9,
      selectSteps: 1,
      feedbackSteps: 1,
      leases: 2,
      acknowledgedThrough: 2,
      buffer: { size: 4 },
      counters: { received: 6, kept: 5, dropped: 1, sampled: 4, skippedStale: 0, latestModelVersion: 0 },
      selector: undefined,
    });
    expect((m.selector as { selectCalls: number; feedbackCalls: number }).selectCalls).toBe(1);
    expect((m.selector as { selectCalls: number; feedbackCalls: number }).feedbackCalls).toBe(1);
  });
});

describe('winnow serve with a token', () => {
  const dir = tempDir('winnow-serve-auth-');
  let run: ServeRun;
  const TOKEN = 'correct-horse-battery';
  beforeAll(async () => {
    run = await startServe({ configFile: serveConfig(dir), host: '127.0.0.1', port: 0, token: TOKEN });
  }, 60_000);
  afterAll(async () => {
    await run?.stop('test done');
  });

  it('401 without a token or with a wrong one, on every route; 200 with the right one', async () => {
    for (const [method, path] of [
      ['GET', '/v1/health'],
      ['POST', '/v1/select'],
      ['GET', '/v1/nope'],
    ] as const) {
      const none = await call(run.url, method, path, { body: method === 'POST' ? {} : undefined });
      expect([none.status, none.headers['www-authenticate'], none.json]).toEqual([
        401,
        'Bearer realm="winnow"',
        {
          error: {
            status: 401,
            code: 'unauthorized',
            message: 'missing token',
            hint: 'send Authorization: Bearer <token> (the token winnow serve was started with)',
          },
        },
      ]);
      const wrong = await call(run.url, method, path, { token: 'wrong-token-123' });
      expect([wrong.status, (wrong.json as { error: { message: string } }).error.message]).toEqual([
        401,
        'bad token',
      ]);
    }
    const ok = await call(run.url, 'GET', '/v1/health', { token: TOKEN });
    expect([ok.status, ok.json]).toEqual([200, { status: 'ok', runId: 'serve-test-1', revision: 0 }]);
    const sel = await call(run.url, 'POST', '/v1/select', { token: TOKEN, body: { n: 2 } });
    expect([sel.status, (sel.json as { taskIds: string[] }).taskIds.length]).toEqual([200, 2]);
  });

  it('refuses to bind beyond loopback without a token, and a short token, before anything is written', async () => {
    const other = tempDir('winnow-serve-bind-');
    const file = serveConfig(other);
    await expect(startServe({ configFile: file, host: '0.0.0.0', port: 0 })).rejects.toThrow(
      /--host: refusing to serve on 0\.0\.0\.0 without a token/,
    );
    await expect(
      startServe({ configFile: file, host: '127.0.0.1', port: 0, token: 'short' }),
    ).rejects.toThrow(/--token: the token is 5 character\(s\) long; at least 8 are needed/);
    const { existsSync } = await import('node:fs');
    expect(existsSync(`${other}/db`)).toBe(false);
    expect(existsSync(`${other}/runs`)).toBe(false);
  });
});

describe('winnow serve with a rate limiter (buffer.rateLimiter)', () => {
  const dir = tempDir('winnow-serve-limiter-');
  let run: ServeRun;
  beforeAll(async () => {
    const buffer = {
      sampler: 'fifo',
      rateLimiter: { samplesPerInsert: 1, minSizeToSample: 4, errorBuffer: 20, insertBatch: 2 },
    };
    run = await startServe({ configFile: serveConfig(dir, { buffer }), host: '127.0.0.1', port: 0 });
  }, 60_000);
  afterAll(async () => {
    await run?.stop('test done');
  });

  it('a held-back sample still gets a lease, no rows and the reason (JSON and Arrow); once allowed, rows', async () => {
    const ids = (
      (await call(run.url, 'POST', '/v1/select', { body: { n: 2 } })).json as { taskIds: string[] }
    ).taskIds;
    const write = (taskId: string) =>
      call(run.url, 'POST', '/v1/experiences', {
        body: { experiences: [0, 1].map((k) => ({ taskId, response: `r${k}`, reward: k })) },
      });
    await write(ids[0]!);
    const held = (await call(run.url, 'POST', '/v1/sample', { body: { n: 2 } })).json as Record<
      string,
      unknown
    >;
    expect(held).toEqual({
      lease: 1,
      experiences: [],
      weights: [],
      skipped: 0,
      blocked: 'replay_ratio: buffer holds 2 < minSizeToSample 4',
    });
    const arrow = await call(run.url, 'POST', '/v1/sample', {
      body: { n: 2 },
      headers: { Accept: 'application/vnd.apache.arrow.stream' },
    });
    expect([
      arrow.headers['winnow-lease'],
      decodeURIComponent(String(arrow.headers['winnow-blocked'])),
    ]).toEqual(['2', held.blocked]);
    expect(tableFromIPC(arrow.body).numRows).toBe(0);
    await write(ids[1]!);
    const ok = (await call(run.url, 'POST', '/v1/sample', { body: { n: 2 } })).json as {
      lease: number;
      experiences: Array<{ id: string }>;
      blocked?: string;
    };
    expect([ok.lease, ok.experiences.map((e) => e.id), ok.blocked]).toEqual([
      3,
      [`s1:${ids[0]}#0`, `s1:${ids[0]}#1`],
      undefined,
    ]);
  });
});
