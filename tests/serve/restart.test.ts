import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type ServeRun, startServe } from '../../src/serve/serve-start.ts';
import { RunTable } from '../../src/store/run-table.ts';
import { tempDir } from '../helpers/tmp.ts';
import { call, fakeReward, serveConfig } from './helpers.ts';

interface StepLog {
  step: number;
  taskIds: string[];
  lease: number;
  sampledIds: string[];
}

const post = async (url: string, path: string, body: unknown) => {
  const r = await call(url, 'POST', path, { body });
  if (r.status !== 200) throw new Error(`${path}: ${r.status} ${JSON.stringify(r.json)}`);
  return r.json as Record<string, unknown>;
};

/** One training-loop step up to the sample; the ack is separate so a restart can fall between them. */
async function stepUntilSample(url: string): Promise<StepLog> {
  const sel = (await post(url, '/v1/select', {})) as { step: number; taskIds: string[] };
  const step = sel.step;
  await post(url, '/v1/feedback', {
    results: sel.taskIds.map((id) => ({
      taskId: id,
      rewards: [0, 1, 2, 3].map((k) => fakeReward(id, step, k)),
    })),
  });
  await post(url, '/v1/experiences', {
    experiences: sel.taskIds.flatMap((id) =>
      [0, 1, 2, 3].map((k) => ({
        taskId: id,
        runIndex: k,
        modelVersion: step - 1,
        response: `r${k}`,
        tokens: [1, 2, 3 + k],
        promptLength: 2,
        logprobs: [-0.5],
        reward: fakeReward(id, step, k),
      })),
    ),
  });
  const s = (await post(url, '/v1/sample', { n: 12 })) as {
    lease: number;
    experiences: Array<{ id: string }>;
  };
  return { step, taskIds: sel.taskIds, lease: s.lease, sampledIds: s.experiences.map((e) => e.id) };
}

const start = (file: string, o: { resume?: boolean } = {}) =>
  startServe({ configFile: file, host: '127.0.0.1', port: 0, ...(o.resume ? { resume: true } : {}) });

describe('winnow serve: restart and continue', () => {
  it('a server stopped between a sample and its ack, then resumed, answers exactly as one that never stopped', async () => {
    // Uninterrupted reference.
    const refDir = tempDir('winnow-serve-ref-');
    const ref = await start(serveConfig(refDir));
    const expected: StepLog[] = [];
    for (let i = 0; i < 3; i++) {
      const s = await stepUntilSample(ref.url);
      await post(ref.url, '/v1/ack', { lease: s.lease });
      expected.push(s);
    }
    const pending = await stepUntilSample(ref.url);
    expected.push(pending);
    await post(ref.url, '/v1/ack', { lease: pending.lease });
    for (let i = 0; i < 3; i++) {
      const s = await stepUntilSample(ref.url);
      await post(ref.url, '/v1/ack', { lease: s.lease });
      expected.push(s);
    }
    const refMetrics = (await call(ref.url, 'GET', '/v1/metrics')).json;
    await ref.stop('done');

    // The same requests with a stop (and a fresh process state) between step 4's sample and its ack.
    const dir = tempDir('winnow-serve-restart-');
    const file = serveConfig(dir);
    let run: ServeRun = await start(file);
    const got: StepLog[] = [];
    for (let i = 0; i < 3; i++) {
      const s = await stepUntilSample(run.url);
      await post(run.url, '/v1/ack', { lease: s.lease });
      got.push(s);
    }
    got.push(await stepUntilSample(run.url));
    const before = (await call(run.url, 'GET', '/v1/metrics')).json as { revision: number };
    await run.stop('test restart');
    const stopped = await (await RunTable.open(join(dir, 'db'))).get('serve-test-1');
    expect(stopped?.status).toBe('interrupted');

    run = await start(file, { resume: true });
    expect(run.restored).toBe(true);
    expect(run.runId).toBe('serve-test-1');
    expect((await call(run.url, 'GET', '/v1/health')).json).toEqual({
      status: 'ok',
      runId: 'serve-test-1',
      revision: before.revision,
    });
    // The lease handed out before the stop is still open: acknowledging it now works.
    expect(await post(run.url, '/v1/ack', { lease: got[3]!.lease })).toEqual({
      lease: 4,
      acknowledgedThrough: 4,
    });
    for (let i = 0; i < 3; i++) {
      const s = await stepUntilSample(run.url);
      await post(run.url, '/v1/ack', { lease: s.lease });
      got.push(s);
    }
    expect(got).toEqual(expected);
    expect(got.map((s) => s.step)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(got.every((s) => s.sampledIds.length > 0)).toBe(true);
    expect((await call(run.url, 'GET', '/v1/metrics')).json).toEqual(refMetrics);
    await run.stop('done');
    // One checkpoint per mutating request; the store keeps the newest three.
    const folders = readdirSync(join(dir, 'runs', 'serve-test-1', 'serve', 'checkpoints')).sort();
    const revision = (refMetrics as { revision: number }).revision;
    expect(revision).toBe(7 * 5);
    expect(folders).toEqual([
      'latest.json',
      `step-${String(revision - 2).padStart(6, '0')}`,
      `step-${String(revision - 1).padStart(6, '0')}`,
      `step-${String(revision).padStart(6, '0')}`,
    ]);
  }, 120_000);

  it('stop() lets the request in progress finish and checkpoint; new connections are refused', async () => {
    const dir = tempDir('winnow-serve-graceful-');
    const file = serveConfig(dir);
    let run = await start(file);
    const sel = (await post(run.url, '/v1/select', { n: 4 })) as { taskIds: string[] };
    const rows = sel.taskIds.flatMap((id) =>
      Array.from({ length: 500 }, (_, k) => ({ taskId: id, runIndex: k, response: `r${k}`, reward: k % 2 })),
    );
    // Stop exactly while the write is being served: once its handler has been entered.
    const session = run.session;
    const write = session.writeExperiences.bind(session);
    const entered = new Promise<void>((resolve) => {
      session.writeExperiences = (req) => {
        resolve();
        return write(req);
      };
    });
    const writing = call(run.url, 'POST', '/v1/experiences', { body: { experiences: rows } });
    await entered;
    const stopped = run.stop('test stop');
    const answer = await writing;
    await stopped;
    expect([answer.status, answer.json]).toEqual([
      200,
      { received: 2000, kept: 2000, dropped: [], bufferSize: 2000 },
    ]);
    await expect(call(run.url, 'GET', '/v1/health')).rejects.toThrow(/ECONNREFUSED/);
    run = await start(file, { resume: true });
    const m = (await call(run.url, 'GET', '/v1/metrics')).json as {
      revision: number;
      buffer: { size: number };
    };
    expect([m.revision, m.buffer.size]).toEqual([2, 2000]);
    await run.stop('done');
  }, 60_000);

  it('a checkpoint that fails stops all changes (503) until a restart, which continues from the last one', async () => {
    const dir = tempDir('winnow-serve-broken-');
    const file = serveConfig(dir);
    let run = await start(file);
    const first = (await post(run.url, '/v1/select', { n: 2 })) as { taskIds: string[] };
    const checkpoints = (run.session as unknown as { o: { checkpoints: { save: () => Promise<never> } } }).o
      .checkpoints;
    checkpoints.save = async () => {
      throw new Error('ENOSPC: no space left on device');
    };
    const failed = await call(run.url, 'POST', '/v1/select', { body: { n: 2 } });
    expect([failed.status, (failed.json as { error: { code: string; message: string } }).error]).toEqual([
      500,
      expect.objectContaining({ code: 'internal', message: 'ENOSPC: no space left on device' }),
    ]);
    const refused = await call(run.url, 'POST', '/v1/feedback', {
      body: { results: [{ taskId: first.taskIds[0], rewards: [1] }] },
    });
    expect([refused.status, refused.json]).toEqual([
      503,
      {
        error: {
          status: 503,
          code: 'needs_restart',
          message:
            'an earlier request failed mid-way (ENOSPC: no space left on device); this server takes no more changes',
          hint: 'restart it with --resume: it continues from the last checkpoint, exactly',
        },
      },
    ]);
    expect((await call(run.url, 'GET', '/v1/health')).status).toBe(200);
    await run.stop('test restart');
    // The reference: the same two selects on a server that never failed.
    const refDir = tempDir('winnow-serve-broken-ref-');
    const ref = await start(serveConfig(refDir));
    await post(ref.url, '/v1/select', { n: 2 });
    const second = await post(ref.url, '/v1/select', { n: 2 });
    await ref.stop('done');
    run = await start(file, { resume: true });
    expect((await call(run.url, 'GET', '/v1/health')).json).toEqual({
      status: 'ok',
      runId: 'serve-test-1',
      revision: 1,
    });
    expect(await post(run.url, '/v1/select', { n: 2 })).toEqual(second);
    await run.stop('done');
  }, 60_000);

  it('--resume refuses a run that winnow run started (its checkpoints are the run loop’s)', async () => {
    const dir = tempDir('winnow-serve-foreign-');
    const file = serveConfig(dir);
    const runs = await RunTable.open(join(dir, 'db'));
    await runs.put({
      runId: 'serve-test-1',
      kind: 'rft',
      name: 'serve-test',
      configHash: 'x',
      seed: 7,
      status: 'interrupted',
      startedAt: 1,
      finishedAt: 2,
      tableVersion: 0,
      summary: JSON.stringify({ runDir: join(dir, 'runs', 'serve-test-1') }),
    });
    await expect(start(file, { resume: true })).rejects.toThrow(
      /run 'serve-test-1' was started by winnow run, not winnow serve/,
    );
    expect(existsSync(join(dir, 'runs', 'serve-test-1'))).toBe(false);
  });
});
