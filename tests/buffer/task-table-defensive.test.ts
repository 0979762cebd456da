import { join } from 'node:path';
import * as lancedb from '@lancedb/lancedb';
import * as arrow from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import type { BadCell } from '../../src/buffer/bad-cell.ts';
import { decodeExperiences } from '../../src/buffer/experience-decode.ts';
import {
  EXPERIENCE_COLUMNS,
  EXPERIENCE_SCHEMA,
  encodeExperiences,
  type StoredExperience,
} from '../../src/buffer/experience-table.ts';
import { TaskStore } from '../../src/buffer/task-store.ts';
import { fitColumns } from '../../src/buffer/typed-columns.ts';
import { DataError } from '../../src/core/errors.ts';
import type { Task } from '../../src/core/task.ts';
import { loadTaskSource } from '../../src/lifecycle/task-source.ts';
import { tempDir } from '../helpers/tmp.ts';
import { exp } from './experience-fixtures/make.ts';

/**
 * Issue #11: rows written by another tool (a raw LanceDB connection) with malformed cells once made
 * every read of the table die with a bare SyntaxError or ZodError naming no row. Decoding now keeps
 * the good rows and names each bad cell by table, id and column.
 */
const root = tempDir('winnow-defensive-');

const good = (i: number): Task => ({
  id: `good-${i}`,
  taskset: 'arith',
  prompt: `${i}+1=`,
  answer: String(i + 1),
  features: { difficulty: i / 10 },
  meta: { n: i },
});

/** A row as another tool would write it: every column of the tasks table, cells as given. */
const foreign = (id: string, cells: Record<string, unknown>) => ({
  id,
  taskset: 'arith',
  prompt: `${id}?`,
  messages: null,
  answer: '1',
  features: '{"difficulty":0.5}',
  meta: '{}',
  source_file: '',
  source_row: -1,
  run_id: 'notebook',
  content_hash: 'x',
  updated_at: 0,
  ...cells,
});

/**
 * The tasks table as Winnow wrote it before the typed layout: nested cells as JSON text. Only a
 * text cell can be malformed JSON (typed columns hold typed values), so the defensive decoding is
 * exercised on this layout; TaskStore keeps writing a table in the layout it has.
 */
const utf8 = new arrow.Utf8();
const LEGACY_TASK_SCHEMA = new arrow.Schema(
  (
    [
      ['id', utf8, false],
      ['taskset', utf8, false],
      ['prompt', utf8, true],
      ['messages', utf8, true],
      ['answer', utf8, true],
      ['features', utf8, false],
      ['meta', utf8, false],
      ['source_file', utf8, false],
      ['source_row', new arrow.Int32(), false],
      ['run_id', utf8, false],
      ['content_hash', utf8, false],
      ['updated_at', new arrow.Float64(), false],
    ] as const
  ).map(([name, type, nullable]) => new arrow.Field(name, type, nullable)),
);

async function tableWithForeignRows(db: string): Promise<void> {
  await (await lancedb.connect(db)).createEmptyTable('tasks', LEGACY_TASK_SCHEMA);
  const store = await TaskStore.open(db);
  await store.write([good(1), good(2), good(3)], 'r1');
  const raw = await (await lancedb.connect(db)).openTable('tasks');
  await raw.add([
    foreign('bad-json', { features: '{"difficulty": 0.5' }),
    foreign('bad-feature', { features: '{"difficulty":"hard"}' }),
    foreign('bad-meta', { meta: '[1,2]' }),
    foreign('bad-two', { features: 'nope', meta: '{' }),
    foreign('bad-messages', { prompt: null, messages: '[{"role":"robot","content":"hi"}]' }),
    foreign('no-prompt', { prompt: null }),
  ]);
}

describe('task rows with malformed cells written by another connection', () => {
  const db = join(root, 'tasks-db');

  it('readChecked returns exactly the good rows and one bad cell per malformed cell, in table order', async () => {
    await tableWithForeignRows(db);
    const store = await TaskStore.open(db);
    const { tasks, bad } = await store.readChecked();
    expect(tasks.map((t) => t.id).sort()).toEqual(['good-1', 'good-2', 'good-3']);
    expect(tasks.find((t) => t.id === 'good-2')).toEqual(good(2));
    const cells = bad.map((c) => [c.table, c.id, c.column]);
    expect(cells).toEqual([
      ['tasks', 'bad-json', 'features'],
      ['tasks', 'bad-feature', 'features'],
      ['tasks', 'bad-meta', 'meta'],
      ['tasks', 'bad-two', 'features'],
      ['tasks', 'bad-two', 'meta'],
      ['tasks', 'bad-messages', 'messages'],
      ['tasks', 'no-prompt', 'prompt'],
    ]);
    const reason = (id: string, column: string) =>
      bad.find((c) => c.id === id && c.column === column)!.reason;
    expect(reason('bad-json', 'features')).toMatch(/^not valid JSON \(.+\): "\{\\"difficulty\\": 0\.5"$/);
    expect(reason('bad-feature', 'features')).toMatch(/^feature 'difficulty': .*number/);
    expect(reason('bad-meta', 'meta')).toMatch(/expected record|object/);
    expect(reason('bad-messages', 'messages')).toMatch(/^message '0\.role': /);
    expect(reason('no-prompt', 'prompt')).toBe('a task needs a prompt or a non-empty messages list');
  });

  it('read() refuses with one line naming the first bad row, its column, and how many more', async () => {
    const store = await TaskStore.open(db);
    const err = await store.read().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DataError);
    const message = (err as Error).message;
    expect(message.split('\n')).toHaveLength(1);
    expect(message).toMatch(
      /^table 'tasks' row 'bad-json': features: not valid JSON .* \(and 5 more rows\)$/,
    );
  });

  it('an RFT task source quarantines the bad rows in rejected (step tasks:decode) and loads the rest', async () => {
    const { tasks, rejected } = await loadTaskSource(
      { table: 'tasks', taskset: 'arith' },
      { baseDir: root, dbDir: db, step: 'tasks' },
    );
    expect(tasks.map((t) => t.id)).toEqual(['good-1', 'good-2', 'good-3']);
    expect(rejected.map((r) => [r.step, r.rowId])).toEqual([
      ['tasks:decode', 'bad-json'],
      ['tasks:decode', 'bad-feature'],
      ['tasks:decode', 'bad-meta'],
      ['tasks:decode', 'bad-two'],
      ['tasks:decode', 'bad-messages'],
      ['tasks:decode', 'no-prompt'],
    ]);
    expect(rejected[3]!.reason).toMatch(
      /^table 'tasks' row 'bad-two': features: not valid JSON .*; meta: not valid JSON /,
    );
  });
});

describe('experience rows with malformed info/messages written by another connection', () => {
  const stored = (id: string): StoredExperience => ({
    exp: exp(id, { reward: 1 }),
    seq: Number(id.slice(1)),
    useCount: 0,
    priority: 0,
    lastUsedStep: -1,
    lastUsedAt: 0,
    consumed: false,
  });

  it('decodeExperiences with a collector leaves the bad rows out and names their cells; without one, one DataError line', async () => {
    // The text layout of experience tables before typed columns: only text cells can be malformed.
    const legacyType = (f: arrow.Field) =>
      ['messages', 'info'].includes(f.name) ? utf8 : f.name.endsWith('_at') ? new arrow.Float64() : f.type;
    const legacy = new arrow.Schema(
      EXPERIENCE_SCHEMA.fields.map((f) => new arrow.Field(f.name, legacyType(f), f.nullable)),
    );
    const conn = await lancedb.connect(join(root, 'exp-db'));
    const table = await conn.createEmptyTable('exps', legacy);
    await table.add(encodeExperiences([stored('e1'), stored('e2')], fitColumns(EXPERIENCE_COLUMNS, legacy)));
    // Another tool copies our rows, then breaks one cell in each copy.
    const copy = (await table.query().toArrow()).toArray().map((r) => r.toJSON() as Record<string, unknown>);
    const fix = (row: Record<string, unknown>, cells: Record<string, unknown>) => ({
      ...row,
      tokens: Array.from(row.tokens as Iterable<number>),
      logprobs: Array.from(row.logprobs as Iterable<number>),
      action_mask: Array.from(row.action_mask as Iterable<number>),
      advantages: null,
      ...cells,
    });
    await table.add([
      fix(copy[0]!, { id: 'x-info', seq: 10, info: '{"a":' }),
      fix(copy[1]!, { id: 'x-msgs', seq: 11, messages: '{"role":"user"}' }),
    ]);
    const data = await table.query().toArrow();
    const bad: BadCell[] = [];
    const rows = decodeExperiences(data, { bad, tableName: 'exps' });
    expect(rows.map((r) => r.exp.id).sort()).toEqual(['e1', 'e2']);
    expect(bad.map((c) => [c.table, c.id, c.column])).toEqual([
      ['exps', 'x-info', 'info'],
      ['exps', 'x-msgs', 'messages'],
    ]);
    expect(bad[1]!.reason).toBe('expected a JSON array');
    const err = (() => {
      try {
        decodeExperiences(data, { tableName: 'exps' });
      } catch (e) {
        return e;
      }
      return null;
    })();
    expect(err).toBeInstanceOf(DataError);
    expect((err as Error).message).toMatch(
      /^table 'exps' row 'x-info': info: not valid JSON \(.+\): "\{\\"a\\":"$/,
    );
  });
});
