import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { viewRun } from '../../src/inspect/run-views.ts';
import { closeAllConnections, connect } from '../../src/store/connection.ts';
import { RunTable } from '../../src/store/run-table.ts';
import { spawnWinnow, tableRows } from '../fault/harness.ts';
import { REPO_ROOT } from '../helpers/cli.ts';
import { tempDir } from '../helpers/tmp.ts';

/**
 * Issue 35 item 4: a failed ingest ends as if it never wrote. A user operator fails after several
 * commits have landed (it throws on its Nth batch); the task table and the rejected table must then
 * equal their state before the run, row for row, and the run record must say it was rolled back.
 * With --keep-partial the committed rows stay, counted by the record. Through the CLI, where a
 * user meets it.
 */
const dir = tempDir('winnow-rollback-');
const ZOD = JSON.stringify(join(REPO_ROOT, 'node_modules', 'zod', 'index.js'));

// A map operator that fails on its `after`-th batch with `message` (the real Lance ENOSPC text in
// one test), after the batches before it have been committed.
writeFileSync(
  join(dir, 'fail-after.ts'),
  [
    `import { z } from ${ZOD};`,
    'export const failAfter = {',
    "  name: 'fail_after', kind: 'map', description: 'fails on its nth batch',",
    '  params: z.object({ after: z.number().int(), message: z.string() }),',
    '  create: (p) => { let calls = 0; return { name: "fail_after", kind: "map", process: (batch) => {',
    '    if (++calls >= p.after) throw new Error(p.message);',
    '    return { rows: batch, dropped: [] };',
    '  } }; },',
    '};',
    '',
  ].join('\n'),
);

/** `rows` tasks t0…t(rows-1) whose text depends on `version`; every 50th row has no answer (rejected). */
function writeData(file: string, rows: number, version: string): void {
  const lines: string[] = [];
  for (let i = 0; i < rows; i++)
    lines.push(JSON.stringify({ id: `t${i}`, q: `q${i} ${version}`, a: i % 50 === 49 ? '' : `#### ${i}` }));
  writeFileSync(file, `${lines.join('\n')}\n`);
}

function writePipeline(name: string, input: string, failing?: { after: number; message: string }): string {
  const file = join(dir, `${name}.yaml`);
  const op = failing
    ? [
        '  - module: ./fail-after.ts',
        '    export: failAfter',
        `    params: { after: ${failing.after}, message: ${JSON.stringify(failing.message)} }`,
      ]
    : [];
  writeFileSync(
    file,
    [
      `name: ${name}`,
      'seed: 3',
      `input: { path: ${input}, batchSize: 100 }`,
      'mapping: { taskset: rb, id: id, prompt: q, answer: a }',
      'operators:',
      '  - op: extract_answer',
      '    params: { mode: gsm8k }',
      ...op,
      'output: { commitRows: 200, report: false }',
      '',
    ].join('\n'),
  );
  return file;
}

const json = (v: unknown) => JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? x.toString() : x));

/** A table's rows, every column, in a stable order. */
async function snapshot(db: string, table: string): Promise<string[]> {
  closeAllConnections();
  return (await tableRows(db, table)).map((r) => json(r)).sort();
}

async function tableVersion(db: string, table: string): Promise<number> {
  closeAllConnections();
  return (await (await connect(db)).openTable(table)).version();
}

/** A database holding one finished run (300 tasks, 6 rejected), and its tables' state. */
async function seededDb(name: string) {
  const db = join(dir, `db-${name}`);
  const first = await spawnWinnow(['run', writePipeline('first', 'v1.jsonl'), '--db', db, '--quiet']);
  expect(first.code).toBe(0);
  const tasks = await snapshot(db, 'tasks');
  const rejected = await snapshot(db, 'rejected');
  expect(tasks.length).toBe(294);
  expect(rejected.length).toBe(6);
  return { db, tasks, rejected, version: await tableVersion(db, 'tasks') };
}

async function failedRecord(db: string) {
  closeAllConnections();
  const failed = (await RunTable.readAll(db)).filter((r) => r.status === 'failed');
  expect(failed.length).toBe(1);
  return { runId: failed[0]!.runId, summary: JSON.parse(failed[0]!.summary) as Record<string, unknown> };
}

const ENOSPC =
  'lance error: LanceError(IO): No space left on device (os error 28), /usr/local/cargo/registry/src/index.crates.io-1949cf8c6b5b557f/lance-file-12.0.0/src/writer/structural.rs:188:9';

beforeAll(() => {
  writeData(join(dir, 'v1.jsonl'), 300, 'v1');
  // The second run updates the first run's 300 tasks and adds 1,700: updates and inserts to undo.
  writeData(join(dir, 'v2.jsonl'), 2000, 'v2');
});

describe('a failed ingest ends as if it never wrote', () => {
  it('an operator failing after several commits: tasks and rejected rows equal their state before the run', async () => {
    const before = await seededDb('boom');
    const yaml = writePipeline('boom', 'v2.jsonl', { after: 12, message: 'operator boom' });
    const r = await spawnWinnow(['run', yaml, '--db', before.db, '--quiet']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('error: operator boom (run with --debug for the stack trace)\n');
    expect(await snapshot(before.db, 'tasks')).toEqual(before.tasks);
    expect(await snapshot(before.db, 'rejected')).toEqual(before.rejected);
    const { summary } = await failedRecord(before.db);
    expect(summary.outcome).toEqual({
      kind: 'rolled-back',
      table: 'tasks',
      toVersion: before.version,
      rejectedKept: false,
    });
    expect(summary.error).toBe('operator boom');
    // Commits had landed before the failure: they are what was undone.
    expect((summary.inserted as number) + (summary.updated as number)).toBeGreaterThanOrEqual(800);
  });

  it('a full disk (the engine error, injected) is one line naming the table, the rollback and a next step', async () => {
    const before = await seededDb('enospc');
    const yaml = writePipeline('enospc', 'v2.jsonl', { after: 12, message: ENOSPC });
    const r = await spawnWinnow(['run', yaml, '--db', before.db, '--quiet']);
    expect(r.code).toBe(1);
    const { runId, summary } = await failedRecord(before.db);
    const line = `${before.db}: table 'tasks': ingest failed: the disk is full (no space left on device); nothing of run ${runId} was kept: table 'tasks' was rolled back to version ${before.version} and its rejected rows removed; free space on that disk, or pass --db a folder on a disk with room, then run again`;
    expect(r.stderr).toBe(`error: ${line}\n`);
    expect(summary.error).toBe(line);
    expect(await snapshot(before.db, 'tasks')).toEqual(before.tasks);
    expect(await snapshot(before.db, 'rejected')).toEqual(before.rejected);
  });

  it('--keep-partial keeps the committed rows, marked by run_id, and the record counts them', async () => {
    const before = await seededDb('partial');
    const yaml = writePipeline('partial', 'v2.jsonl', { after: 12, message: 'operator boom' });
    const r = await spawnWinnow(['run', yaml, '--db', before.db, '--quiet', '--keep-partial']);
    expect(r.code).toBe(1);
    const { runId, summary } = await failedRecord(before.db);
    const outcome = summary.outcome as { kind: string; rows: number; version: number };
    expect(outcome.kind).toBe('kept-partial');
    const rows = await tableRows(before.db, 'tasks');
    const marked = rows.filter((t) => t.run_id === runId);
    expect(marked.length).toBe(outcome.rows);
    expect(outcome.rows).toBe((summary.inserted as number) + (summary.updated as number));
    expect(outcome.rows).toBeGreaterThanOrEqual(800);
    expect(outcome.version).toBe(await tableVersion(before.db, 'tasks'));
    // The rest are the first run's rows, untouched.
    expect(rows.length - marked.length).toBe(
      before.tasks.filter((t) => !marked.some((m) => m.id === JSON.parse(t).id)).length,
    );
  });
});

/** A 2 MiB tmpfs, where this process may mount one (root on Linux); null elsewhere. */
function smallDisk(): string | null {
  const mnt = join(dir, 'tmpfs');
  mkdirSync(mnt, { recursive: true });
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=2m', 'tmpfs', mnt], { stdio: 'ignore' });
    return mnt;
  } catch {
    return null;
  }
}

describe('a real full disk', () => {
  it('an ingest that fills a 2 MiB tmpfs ends rolled back, with one line (skipped where tmpfs cannot be mounted)', async (ctx) => {
    const mnt = smallDisk();
    if (!mnt) return ctx.skip();
    try {
      const db = join(mnt, 'db');
      writeData(join(dir, 'big.jsonl'), 30_000, `v3 ${'x'.repeat(60)}`);
      const r = await spawnWinnow(['run', writePipeline('big', 'big.jsonl'), '--db', db, '--quiet']);
      expect(r.code).toBe(1);
      closeAllConnections();
      const records = await RunTable.readAll(db);
      expect(records.length).toBe(1);
      const { runId } = records[0]!;
      // The failure record needs room too: where the disk has none left it stays `running`, and
      // `winnow runs` shows it interrupted (its process is gone).
      expect(['failed', 'interrupted']).toContain(viewRun(records[0]!).status);
      expect(r.stderr).toMatch(
        new RegExp(
          `^error: ${db}: table 'tasks': ingest failed: the disk is full \\(no space left on device\\); nothing of run ${runId} was kept: table 'tasks' was rolled back to version \\d+ and its rejected rows removed; free space on that disk, or pass --db a folder on a disk with room, then run again\\n$`,
        ),
      );
      expect(await tableRows(db, 'tasks')).toEqual([]);
      expect(await tableRows(db, 'rejected')).toEqual([]);
    } finally {
      closeAllConnections();
      execFileSync('umount', [mnt]);
    }
  });
});
