import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as arrow from 'apache-arrow';
import { beforeAll, describe, expect, it } from 'vitest';
import { jsonRowBatches } from '../../src/export/json-rows.ts';
import { captureMain } from '../cli/capture.ts';
import { tempDir } from '../helpers/tmp.ts';
import { plainRows, readParquetFile } from './arrow-text.ts';
import { makeExportDb } from './fixture.ts';

/**
 * `winnow export --out FILE.jsonl` of a stored table holds what its Parquet export holds: nested
 * JSON columns as objects (not JSON text), times as ISO-8601 strings (not epoch numbers).
 */
const dir = tempDir('winnow-export-jsonl-');
let db: string;
beforeAll(async () => {
  db = await makeExportDb(dir);
}, 120_000);

const run = (...args: string[]) => captureMain(['export', '--db', db, ...args]);
const readJsonl = (file: string) =>
  readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('JSONL export typed like Parquet', () => {
  it('an experience row: info as an object, created_at as ISO text, unset times null', async () => {
    const out = join(dir, 'exps.jsonl');
    const r = await run('--table', 'exps', '--out', out);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`wrote 8 rows of 'exps' to ${out}\n`);
    const rows = readJsonl(out);
    expect(rows.map((row) => row.id)).toEqual([
      'g1-0',
      'g1-1',
      'g1-2',
      'g2-0',
      'g2-1',
      'g3-0',
      'g3-1',
      'g4-0',
    ]);
    expect(rows[5]).toEqual({
      id: 'g3-0',
      task_id: 't1',
      taskset: 'arith',
      group_id: 'g3',
      run_index: 0,
      step_index: 0,
      model_version: 2,
      explore_step: 1,
      prompt: '1+2=',
      messages: null,
      response: '3!',
      tokens: [5, 6, 7, 8],
      logprobs: [-0.5, -0.25],
      action_mask: [],
      prompt_length: 2,
      reward: 0.5,
      advantage: 0,
      advantages: null,
      truncated: false,
      info: { turns: null, judge: { score: 0.5 } },
      use_count: 0,
      priority: 0,
      created_at: '2023-11-14T22:13:20.000Z',
      expert: false,
      seq: 5,
      last_used_step: -1,
      last_used_at: null,
      consumed: false,
      payload_flags: 25,
    });
    expect(rows[3]!.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: '2*3=' },
    ]);
    expect(rows.map((row) => row.info)).toEqual([
      { turns: 1, judge: null },
      { turns: 1, judge: null },
      { turns: null, judge: null },
      { turns: null, judge: null },
      { turns: null, judge: null },
      { turns: null, judge: { score: 0.5 } },
      { turns: null, judge: null },
      { turns: null, judge: null },
    ]);
  });

  it('every JSONL row equals the Parquet row of the same export, times as ISO text', async () => {
    const jsonl = join(dir, 'same.jsonl');
    const parquet = join(dir, 'same.parquet');
    expect((await run('--table', 'exps', '--out', jsonl)).code).toBe(0);
    expect((await run('--table', 'exps', '--out', parquet)).code).toBe(0);
    const table = readParquetFile(parquet);
    const times = table.schema.fields.filter((f) => arrow.DataType.isTimestamp(f.type)).map((f) => f.name);
    expect(times).toEqual(['created_at', 'last_used_at']);
    const fromParquet = plainRows(table).map((row) => {
      const out = { ...row };
      for (const t of times) out[t] = row[t] === null ? null : new Date(row[t] as number).toISOString();
      return out;
    });
    expect(readJsonl(jsonl)).toEqual(fromParquet);
  });

  it('--json-text applies to JSONL as to Parquet', async () => {
    const out = join(dir, 'text.jsonl');
    expect((await run('--table', 'exps', '--json-text', 'info.judge', '--out', out)).code).toBe(0);
    expect(readJsonl(out)[5]!.info).toEqual({ turns: null, judge: '{"score":0.5}' });
  });

  it('a table with no rows writes an empty file; task tables stay Task objects', async () => {
    const out = join(dir, 'uses.jsonl');
    const r = await run('--table', 'exps_uses', '--out', out);
    expect(r.stdout).toBe(`wrote 0 rows of 'exps_uses' to ${out}\n`);
    expect(readFileSync(out, 'utf8')).toBe('');
    const tasks = join(dir, 'tasks.jsonl');
    expect((await run('--out', tasks)).code).toBe(0);
    expect(readJsonl(tasks)[0]).toEqual({
      id: 't1',
      taskset: 'arith',
      prompt: '1+2=',
      answer: '3',
      features: { difficulty: 0.25 },
      meta: { ability: 'math', level: 1, source: 'gen', tags: ['add'] },
    });
  });
});

describe('jsonRowBatches: the Arrow → JSON mapping', () => {
  it('maps each type as documented', () => {
    const fields = [
      new arrow.Field('at', new arrow.TimestampMillisecond('UTC'), true),
      new arrow.Field('day', new arrow.DateDay(), true),
      new arrow.Field('big', new arrow.Int64(), true),
      new arrow.Field('x', new arrow.Float64(), true),
      new arrow.Field('ok', new arrow.Bool(), true),
      new arrow.Field('s', new arrow.Struct([new arrow.Field('a', new arrow.Int32(), true)]), true),
      new arrow.Field('l', new arrow.List(new arrow.Field('element', new arrow.Utf8(), true)), true),
      new arrow.Field('bin', new arrow.Binary(), true),
    ];
    const values: unknown[][] = [
      [0, 1_700_000_000_123, null],
      [new Date(Date.UTC(2024, 1, 29)), null, null],
      [2n ** 53n + 1n, -5n, null],
      [0.5, Number.NaN, null],
      [true, false, null],
      [{ a: 1 }, { a: null }, null],
      [['p', null], [], null],
      [new Uint8Array([1, 2, 255]), new Uint8Array([]), null],
    ];
    const children = fields.map((f, i) => arrow.vectorFromArray(values[i]!, f.type).data[0]!);
    const data = arrow.makeData({ type: new arrow.Struct(fields), length: 3, nullCount: 0, children });
    const table = new arrow.Table([new arrow.RecordBatch(new arrow.Schema(fields), data)]);
    expect([...jsonRowBatches(table)]).toEqual([
      [
        {
          at: '1970-01-01T00:00:00.000Z',
          day: '2024-02-29T00:00:00.000Z',
          big: '9007199254740993',
          x: 0.5,
          ok: true,
          s: { a: 1 },
          l: ['p', null],
          bin: 'AQL/',
        },
        {
          at: '2023-11-14T22:13:20.123Z',
          day: null,
          big: -5,
          x: null,
          ok: false,
          s: { a: null },
          l: [],
          bin: '',
        },
        { at: null, day: null, big: null, x: null, ok: null, s: null, l: null, bin: null },
      ],
    ]);
  });
});
