import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as lancedb from '@lancedb/lancedb';
import { beforeAll, describe, expect, it } from 'vitest';
import { readDataset } from '../../src/io/reader.ts';
import { winnow, winnowInProcess } from '../helpers/cli.ts';
import { tempDir } from '../helpers/tmp.ts';
import { type FilterDb, makeFilterDb } from './fixtures/filter-db.ts';

/** Issue #11: inspect and export select rows by --run, --taskset and --where (checked first). */
const dir = tempDir('winnow-filters-');
let f: FilterDb;
beforeAll(async () => {
  f = await makeFilterDb(dir);
}, 240_000);

interface Inspected {
  table: string;
  rows: number;
  version: number;
  filter?: string;
  sample: Array<{ id: string; run_id?: string; taskset?: string }>;
  badCells: Array<{ table: string; id: string; column: string }>;
}

// The commands run in-process (no Node start-up per call); the last test runs real processes to
// show what reaches stderr and the exit codes.
const cli = (args: string[]) => winnowInProcess(args);

async function inspect(...args: string[]): Promise<Inspected> {
  const r = await cli(['inspect', '--db', f.db, '--json', '--limit', '100', ...args]);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Inspected;
}

const ids = (rows: ReadonlyArray<{ id: string }>) => rows.map((r) => r.id).sort();

/** Export to JSONL and read the records back. */
async function exported(
  ...args: string[]
): Promise<{ stdout: string; records: Array<Record<string, unknown>> }> {
  const out = join(
    dir,
    `out-${Math.random().toString(36).slice(2)}.${args.includes('--parquet') ? 'parquet' : 'jsonl'}`,
  );
  const r = await cli(['export', '--db', f.db, '--out', out, ...args.filter((a) => a !== '--parquet')]);
  expect(r.code, r.stderr).toBe(0);
  const records: Array<Record<string, unknown>> = [];
  for await (const b of readDataset(out)) for (const rec of b.records) records.push(rec.fields);
  return { stdout: r.stdout, records };
}

describe('--run', () => {
  it("selects a task pipeline's rows by run_id in tasks and rejected", async () => {
    const a = await inspect('--run', f.runA.runId, '--table', 'tasks');
    expect(a.rows).toBe(20);
    expect(ids(a.sample)).toEqual(ids(f.a));
    expect(a.filter).toBe(`(run_id = '${f.runA.runId}')`);
    expect((await inspect('--run', f.runB.runId, '--table', 'tasks')).rows).toBe(10);
    // Without --table, a task run's rows are read from 'tasks'.
    expect((await inspect('--run', f.runB.runId)).table).toBe('tasks');
    const rej = await inspect('--run', f.runB.runId, '--table', 'rejected');
    expect(rej.rows).toBe(1);
    expect((await inspect('--run', f.runA.runId, '--table', 'rejected')).rows).toBe(0);
  });

  it("an RFT run's rows default to its buffer table, whole (4 rollouts: 2 tasks × repeat 2)", async () => {
    const r = await inspect('--run', 'rft1');
    expect(r.table).toBe('rft1_experiences');
    expect(r.rows).toBe(4);
    expect(r.filter).toBeUndefined();
    expect(new Set(r.sample.map((s) => s.taskset))).toEqual(new Set(['arithmetic']));
  });

  it('export --run writes only that run’s tasks', async () => {
    const { records, stdout } = await exported('--run', f.runB.runId);
    expect(ids(records as Array<{ id: string }>)).toEqual(ids(f.b));
    expect(stdout).toMatch(/^wrote 10 rows of 'tasks' to /);
  });
});

describe('--taskset', () => {
  it('inspect and export select one task set', async () => {
    expect((await inspect('--table', 'tasks', '--taskset', 'mixed')).rows).toBe(10);
    const { records } = await exported('--taskset', 'arithmetic');
    expect(records).toHaveLength(20);
    expect(ids(records as Array<{ id: string }>)).toEqual(ids(f.a));
    expect(new Set(records.map((r) => r.taskset))).toEqual(new Set(['arithmetic']));
  });

  it('combines with --run (AND): run B has no arithmetic tasks', async () => {
    const r = await cli([
      'inspect',
      '--db',
      f.db,
      '--json',
      '--run',
      f.runB.runId,
      '--taskset',
      'arithmetic',
    ]);
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as Inspected).rows).toBe(0);
  });
});

describe('--where', () => {
  it('comparison with AND', async () => {
    const r = await inspect('--table', 'tasks', '--where', "taskset = 'mixed' AND source_row <= 3");
    expect(ids(r.sample)).toEqual(ids(f.b.slice(0, 3)));
    expect(r.filter).toBe("(((taskset = 'mixed') AND (source_row <= 3)))");
  });

  it('OR and parentheses', async () => {
    const r = await inspect(
      '--table',
      'tasks',
      '--where',
      "(source_row = 1 OR source_row = 2) AND NOT taskset = 'mixed'",
    );
    expect(ids(r.sample)).toEqual(ids(f.a.slice(0, 2)));
    expect((await inspect('--table', 'tasks', '--where', 'source_row = 1 OR source_row = 2')).rows).toBe(4);
  });

  it('IN and NOT IN', async () => {
    const wanted = [f.a[4]!.id, f.b[7]!.id];
    const r = await inspect(
      '--table',
      'tasks',
      '--where',
      `id IN ('${wanted[0]}', '${wanted[1]}', 'not-there')`,
    );
    expect(ids(r.sample)).toEqual([...wanted].sort());
    expect((await inspect('--table', 'tasks', '--where', `id NOT IN ('${wanted[0]}')`)).rows).toBe(29);
  });

  it('LIKE, IS NULL, and a number column against a number', async () => {
    const times = [...f.a, ...f.b].filter((t) => t.prompt.includes('*'));
    const like = await inspect('--table', 'tasks', '--where', "prompt LIKE '%*%'");
    expect(times).toHaveLength(5);
    expect(ids(like.sample)).toEqual(ids(times));
    expect((await inspect('--table', 'tasks', '--where', "prompt NOT LIKE '%*%'")).rows).toBe(25);
    expect((await inspect('--table', 'tasks', '--where', 'messages IS NULL')).rows).toBe(30);
    expect(
      (await inspect('--table', 'tasks', '--where', 'answer IS NOT NULL AND source_row > 18')).rows,
    ).toBe(2);
    expect((await inspect('--run', 'rft1', '--where', 'reward >= 0 AND reward <= 1')).rows).toBe(4);
  });

  it('export applies --run, --taskset and --where together, to JSONL and Parquet alike', async () => {
    const args = ['--run', f.runA.runId, '--taskset', 'arithmetic', '--where', 'source_row <= 5'];
    const jsonl = await exported(...args);
    expect(ids(jsonl.records as Array<{ id: string }>)).toEqual(ids(f.a.slice(0, 5)));
    const parquet = await exported(...args, '--parquet');
    expect(ids(parquet.records as Array<{ id: string }>)).toEqual(ids(f.a.slice(0, 5)));
    expect(parquet.records[0]).toHaveProperty('content_hash');
  });

  it('--version reads the table as it was, and the header says which version', async () => {
    const r = await cli(['inspect', '--db', f.db, '--table', 'tasks', '--version', `run-${f.runA.runId}`]);
    expect(r.code, r.stderr).toBe(0);
    const header = r.stdout.split('\n')[0]!;
    expect(header).toMatch(/: 20 rows, version \d+$/);
    const v = Number(/version (\d+)$/.exec(header)![1]);
    const byNumber = await cli(['inspect', '--db', f.db, '--table', 'tasks', '--version', String(v)]);
    expect(byNumber.stdout.split('\n')[0]).toBe(header);
    const latest = (await cli(['inspect', '--db', f.db, '--table', 'tasks'])).stdout.split('\n')[0]!;
    expect(latest).toMatch(/: 30 rows, version \d+$/);
    expect(latest).not.toBe(header);
  });
});

describe('rows another tool wrote with malformed cells', () => {
  it('inspect warns once per bad row; export skips them, counted, and writes the rest', async () => {
    const raw = await (await lancedb.connect(f.db)).openTable('tasks');
    // The table has the typed layout: another tool can still write a JSON cell that is not JSON,
    // or a feature with no number.
    const row = (id: string, features: Map<string, number | null>, meta: string) => ({
      id,
      taskset: 'foreign',
      prompt: 'x',
      messages: null,
      answer: '1',
      features,
      meta,
      source_file: '',
      source_row: -1,
      run_id: 'notebook',
      content_hash: 'h',
      updated_at: null,
    });
    await raw.add([
      row('f-ok', new Map([['difficulty', 1]]), '{}'),
      row('f-json', new Map([['difficulty', 1]]), '{"difficulty":'),
      row('f-both', new Map([['difficulty', null]]), 'oops'),
    ]);
    // Real processes: what reaches stderr (one warning line per bad row) and the exit code.
    const r = winnow(['inspect', '--db', f.db, '--table', 'tasks', '--taskset', 'foreign', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const warnings = r.stderr.trim().split('\n');
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatch(/^warning: table 'tasks' row 'f-json': meta: not valid JSON /);
    expect(warnings[1]).toMatch(
      /^warning: table 'tasks' row 'f-both': features: feature 'difficulty': .*; meta: not valid JSON /,
    );
    const body = JSON.parse(r.stdout) as Inspected;
    expect(body.rows).toBe(3);
    expect(body.badCells.map((c) => [c.id, c.column])).toEqual([
      ['f-json', 'meta'],
      ['f-both', 'features'],
      ['f-both', 'meta'],
    ]);

    const out = join(dir, 'foreign.jsonl');
    const e = winnow(['export', '--db', f.db, '--taskset', 'foreign', '--out', out]);
    expect(e.code, e.stderr).toBe(0);
    expect(e.stderr.trim().split('\n')).toHaveLength(2);
    expect(e.stdout).toMatch(
      /^wrote 1 rows of 'tasks' to .*foreign\.jsonl \(skipped 2 rows with malformed cells\)\n$/,
    );
    const lines = readFileSync(out, 'utf8').trim().split('\n');
    expect(lines.map((l) => (JSON.parse(l) as { id: string }).id)).toEqual(['f-ok']);
    const pq = join(dir, 'foreign.parquet');
    const p = await cli(['export', '--db', f.db, '--out', pq]);
    expect(p.stdout).toMatch(/^wrote 31 rows of 'tasks' to .* \(skipped 2 rows with malformed cells\)\n$/);
  });
});
