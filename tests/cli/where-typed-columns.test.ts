import { join } from 'node:path';
import * as lancedb from '@lancedb/lancedb';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Task } from '../../src/core/task.ts';
import { UsageError } from '../../src/core/usage-error.ts';
import { type ColumnKind, columnKinds, whereToSql } from '../../src/inspect/where-filter.ts';
import { TaskStore } from '../../src/store/task-store.ts';
import { tempDir } from '../helpers/tmp.ts';

/**
 * `--where` on the typed LanceDB layout: `features.NAME` reads a key of the features map, `meta.a.b`
 * a JSON path typed by the value it is compared with, and time columns take epoch milliseconds or
 * a date. The SQL is printed from the parsed tree and run against a real table.
 */
const db = join(tempDir('winnow-where-typed-'), 'db');
let kinds: Map<string, ColumnKind>;
let table: lancedb.Table;

const task = (i: number): Task => ({
  id: `t${i}`,
  taskset: 'demo',
  prompt: `q${i}`,
  features: { difficulty: i / 10, ...(i % 2 === 0 ? { even: 1 } : {}) },
  meta: { level: i, source: i < 2 ? 'gsm8k' : 'math', review: { ok: i % 3 === 0 } },
});

beforeAll(async () => {
  await (await TaskStore.open(db)).write([0, 1, 2, 3, 4].map(task), 'r1');
  table = await (await lancedb.connect(db)).openTable('tasks');
  kinds = columnKinds(await table.schema());
});

const ids = async (where: string) =>
  (await table.query().where(whereToSql(where, kinds)).select(['id']).toArray())
    .map((r) => String(r.id))
    .sort();

describe('--where on typed columns', () => {
  it('knows the typed kinds', () => {
    expect([
      kinds.get('features'),
      kinds.get('meta'),
      kinds.get('updated_at'),
      kinds.get('messages'),
    ]).toEqual(['map', 'json', 'time', 'other']);
  });

  it('prints SQL for map keys, JSON paths and times', () => {
    expect(whereToSql('features.difficulty >= 0.3', kinds)).toBe(
      "(map_extract(features, 'difficulty')[1] >= 0.3)",
    );
    expect(whereToSql("meta.review.ok = TRUE AND meta.source = 'math'", kinds)).toBe(
      "((json_get_bool(json_get(meta, 'review'), 'ok') = TRUE) AND (json_get_string(meta, 'source') = 'math'))",
    );
    expect(whereToSql("updated_at > '2026-01-01'", kinds)).toBe(
      `(updated_at > arrow_cast(${Date.parse('2026-01-01')}, 'Timestamp(Millisecond, Some("UTC"))'))`,
    );
  });

  it('selects the right rows in LanceDB', async () => {
    expect(await ids('features.difficulty >= 0.3')).toEqual(['t3', 't4']);
    expect(await ids('features.even = 1')).toEqual(['t0', 't2', 't4']);
    expect(await ids('features.even IS NULL')).toEqual(['t1', 't3']);
    expect(await ids('meta.level < 2 OR meta.level IN (4)')).toEqual(['t0', 't1', 't4']);
    expect(await ids("meta.source LIKE 'gsm%'")).toEqual(['t0', 't1']);
    expect(await ids('meta.review.ok = TRUE')).toEqual(['t0', 't3']);
    expect(await ids('meta.missing IS NULL')).toEqual(['t0', 't1', 't2', 't3', 't4']);
    expect(await ids("updated_at > '2020-01-01T00:00:00Z'")).toHaveLength(5);
    expect(await ids(`updated_at > ${Date.now() + 3_600_000}`)).toEqual([]);
  });

  it('refuses what it cannot mean, in one line', () => {
    const err = (w: string) => {
      try {
        whereToSql(w, kinds);
      } catch (e) {
        expect(e).toBeInstanceOf(UsageError);
        return (e as Error).message;
      }
      throw new Error(`accepted: ${w}`);
    };
    expect(err('features.a.b > 1')).toMatch(/^--where: 'features' holds named numbers, one level deep/);
    expect(err('features = 1')).toMatch(
      /can only be tested with IS \[NOT\] NULL at \d+ \(test one key: features\.NAME\)/,
    );
    expect(err("updated_at > 'soon'")).toMatch(/holds times: compare it with epoch milliseconds or a date/);
    expect(err("features.difficulty = 'hard'")).toMatch(/holds numbers, got string/);
    expect(err('prompt.x = 1')).toMatch(/'prompt' has no fields to reach with '\.'/);
    expect(err('metta.x = 1')).toMatch(/unknown column 'metta' in 'metta\.x'/);
    expect(err("meta.level IN (1, 'a')")).toMatch(/the IN list mixes numbers and strings/);
  });
});
