import type { Table } from '@lancedb/lancedb';
import type * as arrow from 'apache-arrow';
import { UsageError } from '../core/usage-error.ts';
import { sqlString } from '../store/sql.ts';
import { formatTable } from './table.ts';

/**
 * `winnow inspect TABLE --similar ID`: the nearest rows to one row by its embedding, with cosine
 * distances. Two kinds of table carry embeddings: a table with a vector column (a fixed-size list
 * of floats, like semantic_dedup's index), searched by LanceDB; and a task table whose meta holds
 * the vector embed wrote (`meta.embedding`), searched exactly here.
 */

export interface SimilarOptions {
  tableName: string;
  id: string;
  limit: number;
  json: boolean;
  /** A vector column, or `meta.<key>` of a task table; default: the first vector column, else meta.embedding. */
  column: string | undefined;
}

interface Neighbour {
  id: string;
  taskset: string | null;
  distance: number;
  similarity: number;
}

/** Vector columns: fixed-size lists of floats. */
function vectorColumns(schema: arrow.Schema): string[] {
  return schema.fields
    .filter((f) => {
      const t = f.type as { listSize?: number; children?: Array<{ type: { typeId?: number } }> };
      return typeof t.listSize === 'number' && /Float/.test(String(t.children?.[0]?.type));
    })
    .map((f) => f.name);
}

function noEmbedding(name: string, why: string): UsageError {
  return new UsageError(
    `table '${name}' has no embedding column (${why}); embeddings live in a vector column such as semantic_dedup's index table (default 'semantic_index') or in meta.embedding of tasks that ran embed`,
  );
}

function unknownId(name: string, id: string, rows: number): UsageError {
  return new UsageError(
    `no row with id '${id}' in table '${name}' (${rows.toLocaleString('en-US')} rows; winnow inspect --table ${name} shows sample ids)`,
  );
}

async function byVectorColumn(table: Table, o: SimilarOptions, column: string, hasTaskset: boolean) {
  const own = await table
    .query()
    .where(`id = ${sqlString(o.id)}`)
    .select([column])
    .limit(1)
    .toArray();
  if (own.length === 0) throw unknownId(o.tableName, o.id, await table.countRows());
  const raw = (own[0] as Record<string, unknown>)[column] as ArrayLike<number> | null;
  if (raw == null)
    throw new UsageError(`row '${o.id}' of table '${o.tableName}' has no value in column '${column}'`);
  const vector = Array.from(raw, Number);
  // One extra: the row itself comes back first (distance 0) and is left out.
  const rows = (await table
    .query()
    .nearestTo(vector)
    .column(column)
    .distanceType('cosine')
    .limit(o.limit + 1)
    .select(hasTaskset ? ['id', 'taskset', '_distance'] : ['id', '_distance'])
    .toArray()) as Array<Record<string, unknown>>;
  let selfSkipped = false;
  const out: Neighbour[] = [];
  for (const r of rows) {
    if (!selfSkipped && String(r.id) === o.id) {
      selfSkipped = true;
      continue;
    }
    const distance = Number(r._distance);
    out.push({
      id: String(r.id),
      taskset: hasTaskset ? String(r.taskset) : null,
      distance,
      similarity: 1 - distance,
    });
  }
  return out.slice(0, o.limit);
}

function metaVector(metaJson: unknown, key: readonly string[]): Float64Array | null {
  if (typeof metaJson !== 'string') return null;
  let v: unknown;
  try {
    v = JSON.parse(metaJson);
  } catch {
    return null;
  }
  for (const k of key)
    v = v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined;
  if (!Array.isArray(v) || v.length === 0 || !v.every((x) => typeof x === 'number')) return null;
  return Float64Array.from(v as number[]);
}

function cosine(a: Float64Array, b: Float64Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

/** Exact search over a task table's meta vectors (read once; fine for task-set sizes). */
async function byMetaKey(table: Table, o: SimilarOptions, key: string[]) {
  const data = await table.query().select(['id', 'taskset', 'meta']).toArrow();
  const ids = data.getChild('id')!.toArray() as unknown as string[];
  const tasksets = data.getChild('taskset')?.toArray() as unknown as string[] | undefined;
  const metas = data.getChild('meta')!.toArray() as unknown as unknown[];
  const at = ids.indexOf(o.id);
  if (at < 0) throw unknownId(o.tableName, o.id, data.numRows);
  const query = metaVector(metas[at], key);
  if (query === null) {
    const anyHas = metas.some((m) => metaVector(m, key) !== null);
    if (!anyHas) throw noEmbedding(o.tableName, `no task has meta.${key.join('.')}`);
    throw new UsageError(`task '${o.id}' of table '${o.tableName}' has no vector at meta.${key.join('.')}`);
  }
  const out: Neighbour[] = [];
  for (let i = 0; i < ids.length; i++) {
    if (i === at) continue;
    const v = metaVector(metas[i], key);
    if (v === null || v.length !== query.length) continue;
    const similarity = cosine(query, v);
    out.push({
      id: String(ids[i]),
      taskset: tasksets ? String(tasksets[i]) : null,
      distance: 1 - similarity,
      similarity,
    });
  }
  // Nearest first; ties in table order (a stable sort).
  out.sort((a, b) => a.distance - b.distance);
  return out.slice(0, o.limit);
}

export async function showSimilar(table: Table, o: SimilarOptions): Promise<number> {
  const schema = await table.schema();
  const names = new Set(schema.fields.map((f) => f.name));
  if (!names.has('id'))
    throw new UsageError(`table '${o.tableName}' has no id column, so --similar cannot name a row`);
  const vectors = vectorColumns(schema);
  const isTaskTable = names.has('meta');
  let column: string;
  let neighbours: Neighbour[];
  if (o.column?.startsWith('meta.')) {
    if (!isTaskTable) throw noEmbedding(o.tableName, `it has no meta column for ${o.column}`);
    column = o.column;
    neighbours = await byMetaKey(table, o, o.column.slice(5).split('.'));
  } else if (o.column !== undefined || vectors.length > 0) {
    column = o.column ?? vectors[0]!;
    if (!vectors.includes(column))
      throw noEmbedding(
        o.tableName,
        `'${column}' is not a vector column; vector columns: ${vectors.join(', ') || 'none'}`,
      );
    neighbours = await byVectorColumn(table, o, column, names.has('taskset'));
  } else if (isTaskTable) {
    column = 'meta.embedding';
    neighbours = await byMetaKey(table, o, ['embedding']);
  } else throw noEmbedding(o.tableName, 'no fixed-size list of floats and no meta column');

  if (o.json) {
    process.stdout.write(
      `${JSON.stringify({ table: o.tableName, id: o.id, column, metric: 'cosine', neighbours }, null, 2)}\n`,
    );
    return 0;
  }
  const lines = [
    `nearest to '${o.id}' in table '${o.tableName}' by ${column} (cosine distance = 1 − similarity):`,
    formatTable(
      ['rank', 'id', 'taskset', 'distance', 'similarity'],
      neighbours.map((n, i) => [
        i + 1,
        n.id,
        n.taskset ?? '',
        n.distance.toFixed(4),
        n.similarity.toFixed(4),
      ]),
    ),
  ];
  if (neighbours.length === 0) lines.push('(no other row has an embedding)');
  process.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}
