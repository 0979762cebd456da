import { Index, type Table } from '@lancedb/lancedb';
import { columnKinds } from '../inspect/where-filter.ts';
import { HttpError } from '../serve/http-error.ts';
import { hasFtsIndex } from './rows-query.ts';
import { checkWritable, openStudioTable, type StudioContext, studioConnection } from './studio-context.ts';

/** What a table holds, as far as the Studio's views go. */
export type TableKind = 'tasks' | 'experiences' | 'rejected' | 'runs' | 'studio' | 'other';

export function tableKind(name: string, columns: ReadonlySet<string>): TableKind {
  if (name.startsWith('studio_')) return 'studio';
  if (name === 'runs') return 'runs';
  if (['id', 'group_id', 'reward', 'response'].every((c) => columns.has(c))) return 'experiences';
  if (['step', 'reason', 'file', 'row'].every((c) => columns.has(c))) return 'rejected';
  if (['id', 'features', 'meta', 'content_hash'].every((c) => columns.has(c))) return 'tasks';
  return 'other';
}

export interface TableSummary {
  name: string;
  kind: TableKind;
  rows: number;
  version: number;
  versions: number;
  tags: string[];
}

async function summary(table: Table): Promise<TableSummary> {
  const columns = new Set((await table.schema()).fields.map((f) => f.name));
  return {
    name: table.name,
    kind: tableKind(table.name, columns),
    rows: await table.countRows(),
    version: await table.version(),
    versions: (await table.listVersions()).length,
    tags: Object.keys(await (await table.tags()).list()).sort(),
  };
}

export async function listTables(ctx: StudioContext): Promise<TableSummary[]> {
  const conn = await studioConnection(ctx);
  const out: TableSummary[] = [];
  for (const name of (await conn.tableNames()).sort()) out.push(await summary(await conn.openTable(name)));
  return out;
}

/** One table: its summary, schema, every version (newest last) and tags, and whether prompt has an FTS index. */
export async function describeTable(ctx: StudioContext, name: string) {
  const table = await openStudioTable(ctx, name);
  const schema = await table.schema();
  const tags = Object.entries(await (await table.tags()).list()).map(([tag, c]) => ({
    tag,
    version: c.version,
  }));
  return {
    ...(await summary(table)),
    schema: schema.fields.map((f) => ({ name: f.name, type: String(f.type), nullable: f.nullable })),
    versionList: (await table.listVersions()).map((v) => ({
      version: v.version,
      timestamp: v.timestamp.toISOString(),
    })),
    tagList: tags,
    ftsIndex: await hasFtsIndex(table, 'prompt'),
  };
}

/**
 * Build (or rebuild) an index the task browser then uses: full text on `prompt` (search), or a
 * scalar index on another column (a filter on it then reads the index, not every row) — a bitmap
 * for text columns (few distinct values: tasksets), a B-tree for numbers. A new index version of
 * the table; the rows are unchanged.
 */
export async function buildIndex(
  ctx: StudioContext,
  name: string,
  column = 'prompt',
): Promise<{
  table: string;
  column: string;
  index: 'fts' | 'bitmap' | 'btree';
  version: number;
  ms: number;
}> {
  checkWritable(ctx);
  const table = await openStudioTable(ctx, name);
  const kinds = columnKinds(await table.schema());
  const kind = kinds.get(column);
  if (kind === undefined || kind === 'other')
    throw new HttpError({
      status: 400,
      code: 'invalid_request',
      field: 'column',
      message: `table '${name}' has no ${kind === 'other' ? 'indexable ' : ''}column '${column}'`,
      hint: `columns: ${[...kinds]
        .filter(([, k]) => k !== 'other')
        .map(([n]) => n)
        .join(', ')}`,
    });
  const index = column === 'prompt' ? 'fts' : kind === 'string' || kind === 'boolean' ? 'bitmap' : 'btree';
  const config = index === 'fts' ? Index.fts() : index === 'bitmap' ? Index.bitmap() : Index.btree();
  const started = performance.now();
  await table.createIndex(column, { config, replace: true });
  return {
    table: name,
    column,
    index,
    version: await table.version(),
    ms: Math.round(performance.now() - started),
  };
}
