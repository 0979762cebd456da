import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpError } from '../../src/serve/http-error.ts';
import { TaskStore } from '../../src/store/task-store.ts';
import type { StudioServer } from '../../src/studio/studio-server.ts';
import { editTask } from '../../src/studio/task-edits.ts';
import { WRITE_LOCK } from '../../src/studio/write-queue.ts';
import { tempDir } from '../helpers/tmp.ts';
import { call, makeStudioDb, startFixtureStudio, studioTasks } from './fixture.ts';

/** A raw GET whose path is sent as written (fetch would resolve `..` before sending). */
function rawGet(base: string, path: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const u = new URL(base);
  return new Promise((done, fail) => {
    const req = request({ host: u.hostname, port: u.port, path, method: 'GET' }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () =>
        done({ status: res.statusCode ?? 0, body: JSON.parse(text) as Record<string, unknown> }),
      );
    });
    req.on('error', fail);
    req.end();
  });
}

describe('studio: bad input is a clear 4xx and changes nothing', () => {
  const dir = tempDir('winnow-studio-bad-');
  let places: { db: string; runs: string };
  let open: StudioServer;
  let guarded: StudioServer;
  let readOnly: StudioServer;
  const TOKEN = 'secret-token-123';
  beforeAll(async () => {
    places = await makeStudioDb(dir);
    open = await startFixtureStudio(dir, places);
    guarded = await startFixtureStudio(dir, { ...places, token: TOKEN });
    readOnly = await startFixtureStudio(dir, { ...places, readOnly: true });
  }, 60_000);
  afterAll(async () => {
    await open?.close();
    await guarded?.close();
    await readOnly?.close();
  });

  async function versions() {
    const r = await call(open.url, '/api/tables');
    return Object.fromEntries(
      (r.body.tables as Array<{ name: string; version: number }>).map((t) => [t.name, t.version]),
    );
  }

  it('an unknown table: 404 naming the nearest table', async () => {
    const r = await call(open.url, '/api/rows?table=taks');
    expect(r.status).toBe(404);
    expect(r.body).toEqual({
      error: "no table 'taks' in the database",
      code: 'unknown_table',
      field: 'table',
      hint: "did you mean 'tasks'?",
    });
  });

  it('a malformed filter: 400 naming where, the position and a hint', async () => {
    const r = await call(
      open.url,
      `/api/rows?table=tasks&where=${encodeURIComponent("taskset = 'odd' AND")}`,
    );
    expect(r.status).toBe(400);
    expect(r.body.field).toBe('where');
    expect(r.body.error).toBe('expected a column name, got end of expression at 20');
    const col = await call(open.url, `/api/rows?table=tasks&where=${encodeURIComponent('difficulty > 1')}`);
    expect(col.status).toBe(400);
    expect(col.body.error).toMatch(/^unknown column 'difficulty' at 1/);
    // The hint's example is itself a filter the table accepts (tasks, and an experience table).
    for (const table of ['tasks', 'exps']) {
      const bad = await call(open.url, `/api/rows?table=${table}&where=${encodeURIComponent('reward >')}`);
      const example = /^e\.g\. (.+) — see docs\/cli-filters\.md$/.exec(String(bad.body.hint))?.[1];
      expect([table, example]).toEqual([table, expect.stringMatching(/ > 0\.5$/)]);
      const ok = await call(open.url, `/api/rows?table=${table}&where=${encodeURIComponent(example!)}`);
      expect([table, ok.status]).toEqual([table, 200]);
    }
    const limit = await call(open.url, '/api/rows?table=tasks&limit=0');
    expect(limit.status).toBe(400);
    expect(limit.body.field).toBe('limit');
  });

  it('a missing or wrong token: 401; the right one passes (header or the cookie the printed URL sets)', async () => {
    const none = await call(guarded.url, '/api/tables');
    expect(none.status).toBe(401);
    expect(none.body).toMatchObject({ error: 'missing token', field: 'token' });
    expect((await call(guarded.url, '/api/tables', { token: 'wrong-token-000' })).status).toBe(401);
    expect((await call(guarded.url, '/api/tables', { token: TOKEN })).status).toBe(200);
    const page = await fetch(new URL(`/?token=${TOKEN}`, guarded.url), { redirect: 'manual' });
    expect(page.status).toBe(303);
    const cookie = page.headers.get('set-cookie')!.split(';')[0]!;
    const withCookie = await fetch(new URL('/api/info', guarded.url), { headers: { cookie } });
    expect(withCookie.status).toBe(200);
  });

  it('a path that leaves the database or the static folder: 400; a file no run recorded: 404; nothing read', async () => {
    const t = await call(open.url, `/api/rows?table=${encodeURIComponent('../db/tasks')}`);
    expect(t.status).toBe(400);
    expect(t.body).toMatchObject({ code: 'path_outside_database', field: 'table' });
    const s = await rawGet(open.url, '/static/../../../package.json');
    expect(s.status).toBe(400);
    expect(s.body.code).toBe('path_outside_root');
    const enc = await rawGet(open.url, '/static/%2e%2e/%2e%2e/studio-server.ts');
    expect(enc.status).toBe(400);
    const src = await call(open.url, `/api/source?file=${encodeURIComponent('../../etc/passwd')}&line=1`);
    expect(src.status).toBe(404);
    expect(src.body).toMatchObject({ code: 'unknown_file', field: 'file' });
    const run = await call(open.url, `/api/compare?run=fifo-1&run=${encodeURIComponent('../runs/prio-1')}`);
    expect(run.status).toBe(400);
    expect(run.body.field).toBe('run[1]');
  });

  it('a second editor with a stale etag, a bad change, read-only mode: refused, no version written', async () => {
    const before = await versions();
    const t = await call(open.url, '/api/task?table=tasks&id=t10');
    const stale = await call(open.url, '/api/task/edit', {
      body: { table: 'tasks', id: 't10', etag: 'not-the-etag', changes: { answer: '1' } },
    });
    expect(stale.status).toBe(409);
    const bad = await call(open.url, '/api/task/edit', {
      body: { table: 'tasks', id: 't10', etag: t.body.etag, changes: { feature: {} } },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.field).toBe('changes.feature');
    const notNum = await call(open.url, '/api/task/edit', {
      body: { table: 'tasks', id: 't10', etag: t.body.etag, changes: { features: { difficulty: 'hard' } } },
    });
    expect(notNum.status).toBe(400);
    expect(notNum.body.field).toBe('changes.features.difficulty');
    const ro = await call(readOnly.url, '/api/task/edit', {
      body: { table: 'tasks', id: 't10', etag: t.body.etag, changes: { answer: '1' } },
    });
    expect(ro.status).toBe(403);
    expect(ro.body.code).toBe('read_only');
    const wrongTable = await call(open.url, '/api/task/edit', {
      body: { table: 'exps', id: 'g1-0', etag: 'x', changes: {} },
    });
    expect(wrongTable.status).toBe(400);
    expect(wrongTable.body.code).toBe('not_a_task_table');
    const pair = await call(open.url, '/api/preference', {
      body: { table: 'exps', groupId: 'g1', chosenId: 'g1-0', rejectedId: 'g2-0' },
    });
    expect(pair.status).toBe(400);
    expect(pair.body.field).toBe('rejectedId');
    expect(await versions()).toEqual(before);
    expect((await call(open.url, '/api/edits')).body.edits).toEqual([]);
  });

  it('an edit that waits on another Studio writing and finds its row changed: 409 before writing, no version of its own', async () => {
    const lock = join(places.db, WRITE_LOCK);
    const t = await call(open.url, '/api/task?table=tasks&id=t20');
    // Another Studio holds the write lock (its lock file names a live process on this host).
    writeFileSync(lock, JSON.stringify({ pid: process.pid, host: hostname(), at: 'now' }));
    // This Studio's edit starts at once (called in this process, its etag check begins now)...
    const ctx = { dbDir: places.db, runsDir: places.runs, rootDir: dir, readOnly: false, user: 'bob' };
    const edit = editTask(ctx, {
      table: 'tasks',
      id: 't20',
      etag: String(t.body.etag),
      changes: { answer: 'mine' },
      reason: '',
    }).then(
      () => ({ status: 200, code: 'written' }),
      (err: HttpError) => ({ status: err.status, code: err.code }),
    );
    // ...while the other Studio changes the same task, then lets go.
    await (await TaskStore.open(places.db)).write([{ ...studioTasks()[20]!, answer: 'theirs' }], 'other');
    const afterTheirs = await versions();
    const edits = (await call(open.url, '/api/edits')).body.edits;
    rmSync(lock);
    expect(await edit).toEqual({ status: 409, code: 'stale_edit' });
    expect(await versions()).toEqual(afterTheirs);
    expect((await call(open.url, '/api/edits')).body.edits).toEqual(edits);
    expect(existsSync(lock)).toBe(false);
    const now = await call(open.url, '/api/task?table=tasks&id=t20');
    expect((now.body.task as { answer: string }).answer).toBe('theirs');
  });

  it('a task at a version that does not exist: 404 naming the versions', async () => {
    const r = await call(open.url, '/api/task?table=tasks&id=t01&version=999');
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ code: 'unknown_version', field: 'version' });
  });

  it('unknown routes and methods: 404 listing routes, 405 with Allow', async () => {
    const r = await call(open.url, '/api/nope');
    expect(r.status).toBe(404);
    expect(r.body.hint).toMatch(/GET \/api\/tables/);
    const m = await fetch(new URL('/api/tables', open.url), {
      method: 'POST',
      body: '{}',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(m.status).toBe(405);
    expect(m.headers.get('allow')).toBe('GET');
  });
});
