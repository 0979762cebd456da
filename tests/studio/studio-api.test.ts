import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StudioServer } from '../../src/studio/studio-server.ts';
import { tempDir } from '../helpers/tmp.ts';
import { call, makeStudioDb, startFixtureStudio } from './fixture.ts';

type Row = Record<string, unknown>;

describe('studio API: tables, pages, edits, undo', () => {
  const dir = tempDir('winnow-studio-');
  let server: StudioServer;
  let base: string;
  beforeAll(async () => {
    const places = await makeStudioDb(dir);
    server = await startFixtureStudio(dir, places);
    base = server.url;
  }, 60_000);
  afterAll(() => server?.close());

  it('lists every table with its kind, rows and version', async () => {
    const r = await call(base, '/api/tables');
    expect(r.status).toBe(200);
    const tables = r.body.tables as Row[];
    const byName = Object.fromEntries(tables.map((t) => [t.name, t]));
    expect(byName.tasks).toMatchObject({ kind: 'tasks', rows: 60 });
    expect(byName.exps).toMatchObject({ kind: 'experiences', rows: 8 });
    expect(byName.rejected).toMatchObject({ kind: 'rejected', rows: 3 });
    expect(byName.runs).toMatchObject({ kind: 'runs', rows: 2 });
  });

  it('pages, filters, searches and sorts without reading the table whole', async () => {
    const first = await call(base, '/api/rows?table=tasks&limit=10');
    expect((first.body.rows as Row[]).map((r) => r.id)).toEqual([
      't00',
      't01',
      't02',
      't03',
      't04',
      't05',
      't06',
      't07',
      't08',
      't09',
    ]);
    expect(first.body.hasMore).toBe(true);
    const third = await call(base, '/api/rows?table=tasks&limit=25&offset=50');
    expect((third.body.rows as Row[]).length).toBe(10);
    expect(third.body.hasMore).toBe(false);
    const odd = await call(
      base,
      `/api/rows?table=tasks&limit=3&offset=3&where=${encodeURIComponent("taskset = 'odd'")}`,
    );
    expect((odd.body.rows as Row[]).map((r) => r.id)).toEqual(['t07', 't09', 't11']);
    const count = await call(base, `/api/count?table=tasks&where=${encodeURIComponent("taskset = 'odd'")}`);
    expect(count.body.count).toBe(30);
    const apples = await call(base, '/api/rows?table=tasks&q=apples&limit=50');
    expect(apples.body.search).toBe('substring');
    expect((apples.body.rows as Row[]).map((r) => r.id)).toEqual([
      't00',
      't07',
      't14',
      't21',
      't28',
      't35',
      't42',
      't49',
      't56',
    ]);
    const sorted = await call(base, '/api/rows?table=tasks&sort=id&desc=1&limit=3&offset=1');
    expect((sorted.body.rows as Row[]).map((r) => r.id)).toEqual(['t58', 't57', 't56']);
  });

  it('builds the full-text index on prompt, and search uses it', async () => {
    expect((await call(base, '/api/table?table=tasks')).body.ftsIndex).toBe(false);
    const built = await call(base, '/api/index', { body: { table: 'tasks' } });
    expect(built.status).toBe(200);
    expect((await call(base, '/api/table?table=tasks')).body.ftsIndex).toBe(true);
    const r = await call(
      base,
      `/api/rows?table=tasks&q=apples&limit=50&where=${encodeURIComponent("taskset = 'even'")}`,
    );
    expect(r.body.search).toBe('fts');
    expect((r.body.rows as Row[]).map((x) => x.id).sort()).toEqual(['t00', 't14', 't28', 't42', 't56']);
    const c = await call(base, `/api/count?table=tasks&q=apples`);
    expect(c.body.count).toBe(9);
  });

  it('an edit is a new version recorded with who and why; a stale etag is refused and nothing changes; undo restores', async () => {
    const before = await call(base, '/api/task?table=tasks&id=t05');
    const etag = before.body.etag as string;
    const v0 = before.body.version as number;
    const edit = await call(base, '/api/task/edit', {
      body: {
        table: 'tasks',
        id: 't05',
        etag,
        changes: { prompt: 'Compute 5 times three.', answer: '15' },
        reason: 'typo',
      },
    });
    expect(edit.status).toBe(200);
    expect(edit.body.version).toBe(v0 + 1);
    const after = await call(base, '/api/task?table=tasks&id=t05');
    expect((after.body.task as Row).prompt).toBe('Compute 5 times three.');
    expect((after.body.task as Row).answer).toBe('15');
    expect(after.body.etag).not.toBe(etag);
    const edits = after.body.edits as Row[];
    expect(edits.map((e) => [e.kind, e.user, e.reason, e.versionBefore, e.versionAfter])).toEqual([
      ['edit', 'alice', 'typo', v0, v0 + 1],
    ]);

    // A second editor still holding the old etag: 409, and neither the table nor the log moves.
    const stale = await call(base, '/api/task/edit', {
      body: { table: 'tasks', id: 't05', etag, changes: { answer: '11' } },
    });
    expect(stale.status).toBe(409);
    expect(stale.body.field).toBe('etag');
    expect(stale.body.error).toMatch(/task 't05' changed since you read it/);
    const still = await call(base, '/api/task?table=tasks&id=t05');
    expect(still.body.version).toBe(v0 + 1);
    expect((still.body.task as Row).answer).toBe('15');
    expect((still.body.edits as Row[]).length).toBe(1);

    const undo = await call(base, '/api/undo', { body: { editId: edits[0]!.editId } });
    expect(undo.status).toBe(200);
    expect(undo.body.version).toBe(v0 + 2);
    const restored = await call(base, '/api/task?table=tasks&id=t05');
    expect((restored.body.task as Row).prompt).toBe('Compute 5 times two.');
    expect((restored.body.task as Row).answer).toBe('10');
    expect(restored.body.etag).toBe(etag);
    const again = await call(base, '/api/undo', { body: { editId: edits[0]!.editId } });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatch(/already undone by alice/);
  });

  it('reads an older version of a table (the version picker), and a missing version is a 404 naming those that exist', async () => {
    const meta = await call(base, '/api/table?table=tasks');
    const versions = (meta.body.versionList as Row[]).map((v) => v.version as number);
    expect(versions[0]).toBe(1);
    const t = await call(base, '/api/task?table=tasks&id=t04');
    const edit = await call(base, '/api/task/edit', {
      body: { table: 'tasks', id: 't04', etag: t.body.etag, changes: { answer: '9' } },
    });
    expect(edit.status).toBe(200);
    const now = await call(base, `/api/rows?table=tasks&where=${encodeURIComponent("id = 't04'")}`);
    expect((now.body.rows as Row[])[0]!.answer).toBe('9');
    const before = t.body.version as number;
    const old = await call(
      base,
      `/api/rows?table=tasks&version=${before}&where=${encodeURIComponent("id = 't04'")}`,
    );
    expect(old.body.version).toBe(before);
    expect((old.body.rows as Row[])[0]!.answer).toBe('8');
    const missing = await call(base, '/api/rows?table=tasks&version=999');
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ code: 'unknown_version', field: 'version' });
    expect(missing.body.error).toMatch(/^table 'tasks' has no version 999 \(versions 1–/);
  });

  it('reject moves a task to rejected (the next run does not read it); undo puts it back', async () => {
    const t = await call(base, '/api/task?table=tasks&id=t09');
    const r = await call(base, '/api/task/review', {
      body: { table: 'tasks', id: 't09', etag: t.body.etag, decision: 'reject', reason: 'ambiguous' },
    });
    expect(r.status).toBe(200);
    expect((await call(base, '/api/task?table=tasks&id=t09')).status).toBe(404);
    const { TaskStore } = await import('../../src/store/task-store.ts');
    const ids = (await (await TaskStore.open(`${dir}/db`)).read()).map((x) => x.id);
    expect(ids).not.toContain('t09');
    expect(ids.length).toBe(59);
    const rej = await call(base, '/api/rejected?table=rejected');
    const studio = (rej.body.groups as Row[]).find((g) => g.step === 'studio');
    expect(studio).toMatchObject({ count: 1 });
    expect(((studio!.examples as Row[])[0] as Row).row_id).toBe('t09');
    const undo = await call(base, '/api/undo', { body: { editId: (r.body.edit as Row).editId } });
    expect(undo.status).toBe(200);
    const back = await call(base, '/api/task?table=tasks&id=t09');
    expect((back.body.task as Row).prompt).toBe('Compute 9 times two.');
    expect(
      ((await call(base, '/api/rejected?table=rejected')).body.groups as Row[]).some(
        (g) => g.step === 'studio',
      ),
    ).toBe(false);
  });

  it('accept marks the task reviewed in meta', async () => {
    const t = await call(base, '/api/task?table=tasks&id=t03');
    const r = await call(base, '/api/task/review', {
      body: { table: 'tasks', id: 't03', etag: t.body.etag, decision: 'accept' },
    });
    expect(r.status).toBe(200);
    const meta = ((await call(base, '/api/task?table=tasks&id=t03')).body.task as Row).meta as Row;
    expect(meta.source).toBe('fixture');
    expect(meta.review).toMatchObject({ status: 'accepted', by: 'alice' });
  });

  it("a task's page shows its selection history and rollouts from each run's buffer", async () => {
    const r = await call(base, '/api/task?table=tasks&id=t01');
    const runs = r.body.runs as Row[];
    expect(runs.map((x) => x.runId)).toEqual(['fifo-1', 'prio-1']);
    expect(runs[0]!.history).toEqual([
      { step: 1, picks: 2, rollouts: 5, meanReward: (1 + 0 + 1 + 0.5 + 0.25) / 5 },
    ]);
  });

  it('groups rejected rows by step and reason class with examples; reads their source lines', async () => {
    const r = await call(base, '/api/rejected');
    const groups = (r.body.groups as Row[]).map((g) => [g.step, g.count]);
    expect(groups).toEqual([
      ['length_filter', 2],
      ['read:jsonl', 1],
    ]);
    const src = await call(base, '/api/source?file=input.jsonl&line=4&context=1');
    expect((src.body.lines as Row[]).map((l) => l.line)).toEqual([3, 4]);
    expect((src.body.lines as Row[])[1]!.text).toBe('{"broken');
  });

  it('compares two runs: metric series over steps and the config diff', async () => {
    const r = await call(base, '/api/compare?run=fifo-1&run=prio-1');
    expect(r.status).toBe(200);
    const series = r.body.series as Record<string, Record<string, Array<number | null>>>;
    expect(r.body.steps).toEqual([0, 1, 2, 3]);
    expect(series.accuracy).toEqual({
      'fifo-1': [0.33, 0.36, 0.4, 0.43],
      'prio-1': [0.33, 0.38, 0.41, 0.45],
    });
    const diff = r.body.configDiff as Row[];
    expect(diff.find((d) => d.path === 'buffer.sampler.type')?.values).toEqual([
      '"fifo"',
      '"version_priority"',
    ]);
  });

  it('an experience group shows responses with reward, advantage and tokens; rewards can be overridden and undone', async () => {
    const g = await call(base, '/api/group?table=exps&groupId=g1');
    const responses = g.body.responses as Row[];
    expect(responses.map((x) => [x.id, x.reward])).toEqual([
      ['g1-0', 1],
      ['g1-1', 0],
      ['g1-2', 1],
    ]);
    expect(responses[0]!.responseTokens).toEqual([7, 8]);
    expect(responses[0]!.logprobs).toEqual([-0.5, -0.25]);
    const o = await call(base, '/api/experience/reward', {
      body: { table: 'exps', id: 'g1-1', etag: '0', reward: 0.75, reason: 'partly right' },
    });
    expect(o.status).toBe(200);
    const stale = await call(base, '/api/experience/reward', {
      body: { table: 'exps', id: 'g1-1', etag: '0', reward: 0.5 },
    });
    expect(stale.status).toBe(409);
    expect(((await call(base, '/api/group?table=exps&groupId=g1')).body.responses as Row[])[1]!.reward).toBe(
      0.75,
    );
    const u = await call(base, '/api/undo', { body: { editId: (o.body.edit as Row).editId } });
    expect(u.status).toBe(200);
    expect(((await call(base, '/api/group?table=exps&groupId=g1')).body.responses as Row[])[1]!.reward).toBe(
      0,
    );
  });
});
