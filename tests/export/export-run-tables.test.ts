import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ExperienceBuffer } from '../../src/buffer/experience-buffer.ts';
import { runRft } from '../../src/lifecycle/run/rft-run.ts';
import { connect } from '../../src/store/connection.ts';
import { TaskStore } from '../../src/store/task-store.ts';
import { captureMain } from '../cli/capture.ts';
import { REPO_ROOT } from '../helpers/cli.ts';
import { missingPython, runPython } from '../helpers/python.ts';
import { smallRftConfig } from '../helpers/rft.ts';
import { tempDir } from '../helpers/tmp.ts';
import { readParquetFile } from './arrow-text.ts';
import { exp, TASKS } from './fixture.ts';

/**
 * Every table a run writes exports to Parquet, and pyarrow reads each file: the run's buffer, its
 * use journal (empty here: its columns are kept), `rejected`, `runs`, `selector_states`; and a
 * task table written beside them (an RFT run reads its tasks from files). Plus the shape that broke the demo's export: a boolean inside `info` that is null in
 * a whole 1,024-row record batch.
 */
const dir = tempDir('winnow-export-run-tables-');
const db = join(dir, 'db');
const RUN = 'tables-1';
const missing = missingPython(['pyarrow'], 'pyarrow reading the exported run tables');

/** 1,100 rollouts; only the first carries `info.empty`, so LanceDB's second read batch holds none. */
const WIDE = Array.from({ length: 1100 }, (_, i) =>
  exp({
    id: `w${i}`,
    groupId: `wg${i >> 2}`,
    taskId: 't1',
    runIndex: i % 4,
    reward: i % 2,
    info: i === 0 ? { reason: 'empty', empty: true } : { reason: 'equal' },
  }),
);

beforeAll(async () => {
  const config = smallRftConfig('tables', {
    experienceOps: [{ op: 'invalid_reward' }, { op: 'reward_std_filter' }, { op: 'grpo' }],
  });
  await runRft(config, { baseDir: REPO_ROOT, dbDir: db, runDir: join(dir, 'run') });
  const wide = await ExperienceBuffer.open(db, { table: 'wide' });
  await wide.write(WIDE);
  await wide.close();
  await (await TaskStore.open(db)).write(TASKS, 'fixture');
}, 240_000);

const RUN_TABLES = [
  `${RUN}_experiences`,
  `${RUN}_experiences_uses`,
  'rejected',
  'runs',
  'selector_states',
  'tasks',
];

describe('winnow export of every table a run writes', () => {
  const written = new Map<string, { file: string; rows: number }>();

  it('each table to Parquet: all rows, the stored column names, read back by parquet-wasm', async () => {
    const conn = await connect(db);
    expect((await conn.tableNames()).sort()).toEqual([...RUN_TABLES, 'wide', 'wide_uses'].sort());
    for (const name of RUN_TABLES) {
      const table = await conn.openTable(name);
      const rows = await table.countRows();
      const columns = (await table.schema()).fields.map((f) => f.name);
      const out = join(dir, `${name}.parquet`);
      const r = await captureMain(['export', '--db', db, '--table', name, '--out', out]);
      expect(r.code, `${name}: ${r.stderr}`).toBe(0);
      expect(r.stdout).toBe(`wrote ${rows.toLocaleString('en-US')} rows of '${name}' to ${out}\n`);
      const back = readParquetFile(out);
      expect([name, back.numRows]).toEqual([name, rows]);
      expect([name, back.schema.fields.map((f) => f.name)]).toEqual([name, columns]);
      written.set(name, { file: out, rows });
    }
    // The command of the demo's first-day failure: the run's own buffer, by --run.
    const byRun = join(dir, 'by-run.parquet');
    const experiences = written.get(`${RUN}_experiences`)!.rows;
    const r = await captureMain(['export', '--db', db, '--run', RUN, '--out', byRun]);
    expect(r.stdout).toBe(
      `wrote ${experiences.toLocaleString('en-US')} rows of '${RUN}_experiences' to ${byRun}\n`,
    );
    written.set('by-run', { file: byRun, rows: experiences });
    // The run did write rows into each table except the (local) use journal.
    for (const name of RUN_TABLES.filter((n) => !n.endsWith('_uses')))
      expect([name, written.get(name)!.rows > 0]).toEqual([name, true]);
  });

  it('a boolean in info that is null in a whole record batch (the demo export)', async () => {
    const out = join(dir, 'wide.parquet');
    const r = await captureMain(['export', '--db', db, '--table', 'wide', '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`wrote 1,100 rows of 'wide' to ${out}\n`);
    const info = readParquetFile(out).getChild('info')!;
    const empty = Array.from({ length: 1100 }, (_, i) => (info.get(i) as { empty: boolean | null }).empty);
    expect(empty[0]).toBe(true);
    expect(empty.slice(1).every((v) => v === null)).toBe(true);
    written.set('wide', { file: out, rows: 1100 });
  });

  it.skipIf(missing.length > 0)('pyarrow reads every exported file with all its rows', () => {
    const script = join(dir, 'count.py');
    writeFileSync(
      script,
      [
        'import json, sys',
        'import pyarrow.parquet as pq',
        'print(json.dumps({p: pq.read_table(p).num_rows for p in sys.argv[1:]}))',
      ].join('\n'),
    );
    const files = [...written.values()];
    expect(files.length).toBe(RUN_TABLES.length + 2);
    const r = runPython(
      script,
      files.map((f) => f.file),
    );
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(Object.fromEntries(files.map((f) => [f.file, f.rows])));
  });
});
