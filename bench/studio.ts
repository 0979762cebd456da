// `winnow bench studio`: how fast the Studio's task browser answers on a large task table.
//
// Builds a synthetic task table (--rows, default 1M) with the real TaskStore, starts the Studio's
// HTTP server on a free loopback port, and times GET /api/rows for three pages — the first page, a
// filtered page (a --where predicate deep in the table) and a sorted page — against a plain
// LanceDB query of the same page (same filter, columns, offset and limit) in the same process.
// Run: npx winnow bench studio [--rows 1000000] [--json]
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseCommand } from '../src/cli/command-spec.ts';
import { formatTable } from '../src/cli/table.ts';
import type { Task } from '../src/core/task.ts';
import { columnKinds } from '../src/inspect/where-filter.ts';
import { connect } from '../src/store/connection.ts';
import { TaskStore } from '../src/store/task-store.ts';
import { pageColumns, whereSql } from '../src/studio/rows-query.ts';
import { startStudioServer } from '../src/studio/studio-server.ts';
import { buildIndex } from '../src/studio/tables-api.ts';
import { STUDIO_BENCH_SPEC } from './studio-spec.ts';

const TASKSETS = ['gsm8k', 'math', 'arith', 'code'];

function syntheticTask(i: number): Task {
  return {
    id: `t${String(i).padStart(8, '0')}`,
    taskset: TASKSETS[i % TASKSETS.length]!,
    prompt: `Question ${i}: what is ${i % 997} plus ${(i * 7) % 1009}? Show your working.`,
    answer: String((i % 997) + ((i * 7) % 1009)),
    features: { difficulty: (i % 100) / 100 },
    meta: { source: 'bench' },
    source: { file: 'bench.jsonl', row: i + 1 },
  };
}

async function buildTable(db: string, rows: number, log: (s: string) => void): Promise<void> {
  const conn = await connect(db);
  if (
    (await conn.tableNames()).includes('tasks') &&
    (await (await conn.openTable('tasks')).countRows()) === rows
  ) {
    log(`reusing the ${rows.toLocaleString('en-US')}-row table in ${db}`);
    return;
  }
  if ((await conn.tableNames()).includes('tasks')) await conn.dropTable('tasks');
  const store = await TaskStore.open(db);
  const started = performance.now();
  const batch = 100_000;
  for (let from = 0; from < rows; from += batch) {
    const tasks = Array.from({ length: Math.min(batch, rows - from) }, (_, k) => syntheticTask(from + k));
    await store.write(tasks, 'bench', { append: true });
  }
  log(
    `wrote ${rows.toLocaleString('en-US')} tasks in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
}

const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
};

async function timed(repeats: number, fn: () => Promise<unknown>): Promise<{ p50: number; p95: number }> {
  await fn(); // warm: the first read of a fresh handle opens files
  await fn();
  const ms: number[] = [];
  for (let i = 0; i < repeats; i++) {
    const t = performance.now();
    await fn();
    ms.push(performance.now() - t);
  }
  return { p50: quantile(ms, 0.5), p95: quantile(ms, 0.95) };
}

export async function studioBenchMain(argv: string[]): Promise<number> {
  const parsed = parseCommand(STUDIO_BENCH_SPEC, argv);
  if (!parsed) return 0;
  const o = parsed.values;
  const log = (s: string) => process.stderr.write(`${s}\n`);
  const temp = o.db === undefined ? mkdtempSync(join(tmpdir(), 'winnow-bench-studio-')) : null;
  const db = o.db ?? join(temp!, 'db');
  try {
    await buildTable(db, o.rows, log);
    const server = await startStudioServer({
      dbDir: db,
      runsDir: join(db, '..', 'runs'),
      rootDir: existsSync(db) ? db : tmpdir(),
      readOnly: true,
      user: 'bench',
      host: '127.0.0.1',
      port: 0,
    });
    const table = await (await connect(db)).openTable('tasks');
    const schema = await table.schema();
    const columns = pageColumns(schema);
    // Deep in the table: the filtered page's rows sit in the last fifth of it.
    const where = `taskset = 'math' AND source_row > ${Math.floor(o.rows * 0.8)}`;
    const sql = whereSql(where, columnKinds(schema));
    const cases: Array<{
      name: string;
      params: Record<string, string>;
      plain: (() => Promise<unknown>) | null;
    }> = [
      {
        name: 'first page',
        params: {},
        plain: () =>
          table
            .query()
            .select(columns)
            .limit(o.page + 1)
            .toArrow(),
      },
      {
        name: 'filtered page',
        params: { where, offset: String(o.page) },
        plain: () =>
          table
            .query()
            .where(sql)
            .select(columns)
            .offset(o.page)
            .limit(o.page + 1)
            .toArrow(),
      },
      { name: 'sorted page', params: { sort: 'source_row', desc: '1' }, plain: null },
    ];
    const results: Array<{
      case: string;
      rows: number;
      studioP50Ms: number;
      studioP95Ms: number;
      lancedbP50Ms: number | null;
      ratio: number | null;
      targetMet: boolean | null;
    }> = [];
    const measure = async (c: (typeof cases)[number]) => {
      const url = new URL('/api/rows', server.url);
      url.search = new URLSearchParams({ table: 'tasks', limit: String(o.page), ...c.params }).toString();
      let rowsSeen = 0;
      const studio = await timed(o.repeats, async () => {
        const res = await fetch(url);
        if (!res.ok) throw new Error(`${url}: HTTP ${res.status} ${await res.text()}`);
        rowsSeen = ((await res.json()) as { rows: unknown[] }).rows.length;
      });
      const plain = c.plain ? await timed(o.repeats, c.plain) : null;
      results.push({
        case: c.name,
        rows: rowsSeen,
        studioP50Ms: studio.p50,
        studioP95Ms: studio.p95,
        lancedbP50Ms: plain?.p50 ?? null,
        ratio: plain ? studio.p50 / plain.p50 : null,
        targetMet: c.plain ? studio.p50 <= 100 : null,
      });
    };
    try {
      for (const c of cases) await measure(c);
      // What the Studio's "index column" action does (POST /api/index): a bitmap on taskset and a
      // B-tree on source_row; the same filtered page again, Studio and plain LanceDB alike.
      const ctx = { dbDir: db, runsDir: db, rootDir: db, readOnly: false, user: 'bench' };
      const built = [await buildIndex(ctx, 'tasks', 'taskset'), await buildIndex(ctx, 'tasks', 'source_row')];
      log(`indexed taskset (${built[0]!.ms} ms) and source_row (${built[1]!.ms} ms)`);
      await table.checkoutLatest();
      await measure({ ...cases[1]!, name: 'filtered page, indexed' });
    } finally {
      await server.close();
    }
    if (o.json) {
      process.stdout.write(
        `${JSON.stringify({ tableRows: o.rows, page: o.page, repeats: o.repeats, where, results }, null, 2)}\n`,
      );
      return 0;
    }
    const f = (v: number | null) => (v === null ? '' : v.toFixed(1));
    process.stdout.write(
      `bench studio: ${o.rows.toLocaleString('en-US')}-row task table, ${o.page} rows a page, ${o.repeats} timed requests each\n` +
        `filter: ${where}\n\n${formatTable(
          ['page', 'rows', 'studio p50 ms', 'studio p95 ms', 'LanceDB p50 ms', 'ratio', 'p50 ≤ 100 ms'],
          results.map((r) => [
            r.case,
            r.rows,
            f(r.studioP50Ms),
            f(r.studioP95Ms),
            f(r.lancedbP50Ms),
            r.ratio === null ? '' : `${r.ratio.toFixed(2)}×`,
            r.targetMet === null ? '' : r.targetMet ? 'yes' : 'no',
          ]),
        )}\n`,
    );
    return 0;
  } finally {
    if (temp) rmSync(temp, { recursive: true, force: true });
  }
}
