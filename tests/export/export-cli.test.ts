import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { TaskStore } from '../../src/store/task-store.ts';
import { captureMain } from '../cli/capture.ts';
import { tempDir } from '../helpers/tmp.ts';
import { plainRows, readParquetFile, schemaText } from './arrow-text.ts';
import { makeExportDb, TASKS } from './fixture.ts';

/** `winnow export --format …` on a real database: files, summary lines, drops, and bad input. */
const dir = tempDir('winnow-export-cli-');
let db: string;
beforeAll(async () => {
  db = await makeExportDb(dir);
  // A task table whose meta.level is a number in one row and a string in another.
  await (await TaskStore.open(db, 'mixed')).write(
    [
      { id: 'm1', taskset: 'm', prompt: 'a', features: {}, meta: { level: 1 } },
      { id: 'm2', taskset: 'm', prompt: 'b', features: {}, meta: { level: 'high' } },
    ],
    'fixture',
  );
}, 120_000);

const run = (...args: string[]) => captureMain(['export', '--db', db, ...args]);
const CHAT = 'list<struct<role: string not null, content: string not null> not null>';

describe('winnow export --format', () => {
  it('the winnow format (default) types the JSON columns and times of a task table', async () => {
    const out = join(dir, 'tasks.parquet');
    const r = await run('--out', out);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`wrote 3 rows of 'tasks' to ${out}\n`);
    const t = readParquetFile(out);
    expect(schemaText(t.schema)).toEqual([
      'id: string not null',
      'taskset: string not null',
      'prompt: string',
      `messages: ${CHAT}`,
      'answer: string',
      'features: struct<difficulty: double, pass_rate: double> not null',
      // JSON is stored as Lance's binary JSON, which keeps object keys sorted: first-seen order is that order.
      'meta: struct<ability: string, level: double, source: string, tags: list<string>, extra: struct<ok: bool>> not null',
      'source_file: string not null',
      'source_row: int32 not null',
      'run_id: string not null',
      'content_hash: string not null',
      'updated_at: timestamp[ms, tz=UTC]',
    ]);
    const rows = plainRows(t);
    expect(rows.map((row) => [row.id, row.messages, row.features])).toEqual([
      ['t1', null, { difficulty: 0.25, pass_rate: null }],
      [
        't2',
        [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: '2*3=' },
        ],
        { difficulty: 1, pass_rate: 0.5 },
      ],
      ['t3', null, { difficulty: null, pass_rate: null }],
    ]);
    const now = Date.now();
    for (const row of rows) expect(Math.abs(now - (row.updated_at as number))).toBeLessThan(10 * 60_000);
  });

  it('the winnow format keeps JSONL tasks as Task objects (unchanged)', async () => {
    const out = join(dir, 'tasks.jsonl');
    expect((await run('--out', out)).code).toBe(0);
    const lines = readFileSync(out, 'utf8').trim().split('\n');
    expect(lines.map((l) => JSON.parse(l))).toEqual(TASKS);
  });

  it('the winnow format of an experience table: messages as chat turns, info typed, times as timestamps', async () => {
    const out = join(dir, 'exps.parquet');
    const r = await run('--table', 'exps', '--out', out);
    expect(r.stdout).toBe(`wrote 8 rows of 'exps' to ${out}\n`);
    const t = readParquetFile(out);
    const types = Object.fromEntries(
      schemaText(t.schema).map((s) => [s.slice(0, s.indexOf(': ')), s.slice(s.indexOf(': ') + 2)]),
    );
    expect(types.messages).toBe(CHAT);
    expect(types.info).toBe('struct<turns: int64, judge: struct<score: double>> not null');
    expect(types.created_at).toBe('timestamp[ms, tz=UTC]');
    expect(types.last_used_at).toBe('timestamp[ms, tz=UTC]');
    const rows = plainRows(t);
    expect(rows.map((row) => [row.id, row.info, row.created_at, row.last_used_at])).toEqual([
      ['g1-0', { turns: 1, judge: null }, 1_700_000_000_000, null],
      ['g1-1', { turns: 1, judge: null }, 1_700_000_000_000, null],
      ['g1-2', { turns: null, judge: null }, 1_700_000_000_000, null],
      ['g2-0', { turns: null, judge: null }, 1_700_000_000_000, null],
      ['g2-1', { turns: null, judge: null }, 1_700_000_000_000, null],
      ['g3-0', { turns: null, judge: { score: 0.5 } }, 1_700_000_000_000, null],
      ['g3-1', { turns: null, judge: null }, 1_700_000_000_000, null],
      ['g4-0', { turns: null, judge: null }, 1_700_000_000_000, null],
    ]);
  });

  it('verl and trl-prompt from the task table; the trainer formats from the experience table', async () => {
    const cases = [
      ['verl', 'tasks', 3, 'data_source'],
      ['trl-prompt', 'tasks', 3, 'prompt'],
      ['trl-sft', 'exps', 4, 'prompt'],
      ['trl-messages', 'exps', 4, 'messages'],
      ['trl-dpo', 'exps', 2, 'prompt'],
    ] as const;
    for (const [format, table, rows, first] of cases) {
      const out = join(dir, `${format}.parquet`);
      const r = await run('--format', format, '--table', table, '--out', out);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout.startsWith(`wrote ${rows} rows of '${table}' to ${out} as ${format}`)).toBe(true);
      const t = readParquetFile(out);
      expect(t.numRows).toBe(rows);
      expect(t.schema.fields[0]!.name).toBe(first);
    }
  });

  it('trl-dpo lists the groups it left out, with reasons, beside the output', async () => {
    const out = join(dir, 'pairs.parquet');
    const r = await run('--format', 'trl-dpo', '--table', 'exps', '--min-margin', '0.5', '--out', out);
    expect(r.stdout).toBe(
      `wrote 1 rows of 'exps' to ${out} as trl-dpo; trl-dpo left out 3 (tie 1, below_margin 1, single_rollout 1), listed in ${out}.dropped.jsonl\n`,
    );
    const dropped = readFileSync(`${out}.dropped.jsonl`, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(dropped).toEqual([
      { format: 'trl-dpo', id: 'g2', taskId: 't2', reason: 'tie', detail: 'all 2 rollouts have reward 0.5' },
      {
        format: 'trl-dpo',
        id: 'g3',
        taskId: 't1',
        reason: 'below_margin',
        detail: 'margin 0.25 < minMargin 0.5',
      },
      {
        format: 'trl-dpo',
        id: 'g4',
        taskId: 't3',
        reason: 'single_rollout',
        detail: 'group has 1 rollout; a pair needs 2',
      },
    ]);
  });

  it('typed formats write JSONL too, nested values as JSON objects', async () => {
    const out = join(dir, 'verl.jsonl');
    const r = await run('--format', 'verl', '--split', 'test', '--out', out);
    expect(r.code, r.stderr).toBe(0);
    const first = JSON.parse(readFileSync(out, 'utf8').split('\n')[0]!);
    expect(first).toEqual({
      data_source: 'arith',
      prompt: [{ role: 'user', content: '1+2=' }],
      ability: 'math',
      reward_model: { style: 'rule', ground_truth: '3' },
      extra_info: {
        index: 0,
        split: 'test',
        task_id: 't1',
        taskset: 'arith',
        features: { difficulty: 0.25 },
        meta: { source: 'gen', tags: ['add'], level: 1, ability: 'math' },
      },
    });
  });

  it('a field that cannot be unified fails naming it; --json-text stores it as text', async () => {
    const out = join(dir, 'mixed.parquet');
    const bad = await run('--format', 'verl', '--table', 'mixed', '--out', out);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toBe(
      "error: column 'meta.level': row 'm1' holds an integer and row 'm2' a string; Parquet needs one type per column (fix the data, leave such rows out with --where, or store the field as JSON text with --json-text meta.level)\n",
    );
    expect(existsSync(out)).toBe(false);
    const ok = await run('--format', 'verl', '--table', 'mixed', '--json-text', 'meta.level', '--out', out);
    expect(ok.code, ok.stderr).toBe(0);
    const rows = plainRows(readParquetFile(out));
    expect(rows.map((row) => (row.extra_info as { meta: unknown }).meta)).toEqual([
      { level: '1' },
      { level: 'high' },
    ]);
  });
});

describe('bad export invocations: one line, the documented exit code, nothing written', () => {
  const out = () => join(dir, 'never.parquet');
  const cases: Array<[string, string[], number, string]> = [
    [
      'an unknown format',
      ['--format', 'verll'],
      2,
      "error: --format: unknown value 'verll'; did you mean 'verl'?",
    ],
    [
      'an experience format given the task table',
      ['--format', 'trl-dpo'],
      2,
      "error: format 'trl-dpo' reads an experience table, but 'tasks' is a task table (pass --table exps or --run RUN; experience tables here: exps)",
    ],
    [
      'a task format given an experience table',
      ['--format', 'verl', '--table', 'exps'],
      2,
      "error: format 'verl' reads a task table, but 'exps' is an experience table (pass --table tasks; task tables here: mixed, tasks)",
    ],
    [
      'no rows to export',
      ['--format', 'trl-prompt', '--where', "taskset = 'none'"],
      2,
      "error: table 'tasks' has no rows matching the filters: nothing to export",
    ],
    [
      'every group left out',
      ['--format', 'trl-dpo', '--table', 'exps', '--where', "group_id = 'g2'"],
      3,
      `error: format 'trl-dpo' kept no rows of the 2 in 'exps'; trl-dpo left out 1 (tie 1), listed in ${out()}.dropped.jsonl; nothing written`,
    ],
    [
      'a negative margin',
      ['--format', 'trl-dpo', '--table', 'exps', '--min-margin', '-1'],
      2,
      "error: --min-margin expects a number ≥ 0, got '-1'",
    ],
  ];
  for (const [name, args, code, message] of cases) {
    it(name, async () => {
      const r = await run(...args, '--out', out());
      expect(r.code).toBe(code);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(`${message}\n`);
      expect(existsSync(out())).toBe(false);
    });
  }
});
