import type * as arrow from 'apache-arrow';
import { openExisting } from '../inspect/table-target.ts';
import { MISSING } from '../io/field-path.ts';
import { readDataset } from '../io/reader.ts';
import { localArrowTable, plainValue } from '../store/arrow-codec.ts';
import { connect } from '../store/connection.ts';

/**
 * The rows `winnow judge` re-scores, in input order, as batches of plain objects: from a dataset
 * file (JSONL, JSON, CSV, Parquet, Arrow: the readers of src/io) or from a LanceDB table. Rows a
 * reader cannot read come with their reason, so the command can report them.
 */
export interface JudgeBatch {
  rows: Array<Record<string, unknown>>;
  unreadable: Array<{ row: number; reason: string }>;
}

export interface RowSourceInfo {
  /** Total rows when known up front (tables), for the progress bar. */
  total: number | null;
  batches: AsyncGenerator<JudgeBatch>;
  /** The answer of a task id, for experience rows that carry none (the database's tasks table). */
  taskAnswer?: (taskId: string) => string | undefined;
}

export function fileRows(path: string): RowSourceInfo {
  async function* batches(): AsyncGenerator<JudgeBatch> {
    for await (const b of readDataset(path, { batchSize: 1024 })) {
      yield {
        rows: b.records.map((r) => r.fields),
        unreadable: b.rejected.map((r) => ({ row: r.row, reason: r.reason })),
      };
    }
  }
  return { total: null, batches: batches() };
}

/** Arrow cells as JSON-ready values: structs become objects, lists arrays, bigints numbers. */
function plainCell(v: unknown): unknown {
  if (v !== null && typeof v === 'object' && !Array.isArray(v) && !ArrayBuffer.isView(v)) {
    const json = (v as { toJSON?: () => unknown }).toJSON?.();
    if (json !== undefined && json !== v && !Array.isArray(json)) {
      return Object.fromEntries(Object.entries(json as object).map(([k, x]) => [k, plainCell(x)]));
    }
  }
  const p = plainValue(v);
  return Array.isArray(p) ? p.map(plainCell) : p;
}

function tableRows(data: arrow.Table): Array<Record<string, unknown>> {
  const names = data.schema.fields.map((f) => f.name);
  const cols = names.map((n) => data.getChild(n)!);
  const out: Array<Record<string, unknown>> = [];
  for (let i = 0; i < data.numRows; i++) {
    const row: Record<string, unknown> = {};
    names.forEach((n, j) => {
      row[n] = plainCell(cols[j]!.get(i));
    });
    out.push(row);
  }
  return out;
}

/** The answers of the database's `tasks` table by id, when it has one (experience rows carry none). */
async function taskAnswers(dbDir: string): Promise<Map<string, string> | null> {
  const conn = await connect(dbDir);
  if (!(await conn.tableNames()).includes('tasks')) return null;
  const table = await conn.openTable('tasks');
  const fields = new Set((await table.schema()).fields.map((f) => f.name));
  if (!fields.has('id') || !fields.has('answer')) return null;
  const data = localArrowTable(await table.query().select(['id', 'answer']).toArrow());
  const ids = data.getChild('id')!;
  const answers = data.getChild('answer')!;
  const map = new Map<string, string>();
  for (let i = 0; i < data.numRows; i++) {
    const a = answers.get(i);
    if (a !== null && a !== undefined) map.set(String(ids.get(i)), String(a));
  }
  return map;
}

/** Every row of a LanceDB table (read only: no version is written). */
export async function lanceRows(dbDir: string, tableName: string): Promise<RowSourceInfo> {
  const table = await openExisting(dbDir, tableName);
  const total = await table.countRows();
  const answers = await taskAnswers(dbDir);
  async function* batches(): AsyncGenerator<JudgeBatch> {
    const data = localArrowTable(await table.query().toArrow());
    const rows = tableRows(data);
    for (let i = 0; i < rows.length; i += 1024) yield { rows: rows.slice(i, i + 1024), unreadable: [] };
  }
  return {
    total,
    batches: batches(),
    ...(answers ? { taskAnswer: (id: string) => answers.get(id) } : {}),
  };
}

/**
 * A getter for a field or dotted path (`answer`, `info.answer`, `info.meta.gold`) that also reads
 * into JSON text: an experience table stores `info` as JSON, so `info.answer` must parse it. An
 * exact column of that name wins, as in io/field-path.ts. Absent → MISSING.
 */
export function jsonFieldPath(path: string): (row: Record<string, unknown>) => unknown {
  const segments = path.split('.');
  return (row) => {
    if (Object.hasOwn(row, path)) return row[path];
    let cur: unknown = row;
    for (const seg of segments) {
      if (typeof cur === 'string' && cur.startsWith('{')) {
        try {
          cur = JSON.parse(cur) as unknown;
        } catch {
          return MISSING;
        }
      }
      if (cur === null || typeof cur !== 'object' || !Object.hasOwn(cur, seg)) return MISSING;
      cur = (cur as Record<string, unknown>)[seg];
    }
    return cur;
  };
}
