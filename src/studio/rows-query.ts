import type { Table } from '@lancedb/lancedb';
import { UsageError } from '../core/usage-error.ts';
import { checkoutChecked } from '../inspect/table-target.ts';
import { type ColumnKind, columnKinds, whereToSql } from '../inspect/where-filter.ts';
import { HttpError } from '../serve/http-error.ts';
import { jsonRows } from './json-cells.ts';

/** One page of a table as the task browser asks for it. */
export interface PageRequest {
  version?: string | undefined;
  where?: string | undefined;
  /** Full-text search on `prompt` (the FTS index when there is one, else a substring match). */
  q?: string | undefined;
  sort?: string | undefined;
  desc?: boolean | undefined;
  offset: number;
  limit: number;
}

export interface Page {
  version: number;
  rows: Record<string, unknown>[];
  /** Whether a row follows this page (read as limit + 1, so no count is needed). */
  hasMore: boolean;
  filter: string | null;
  search: 'fts' | 'substring' | null;
}

const PLAIN_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * A filter that this table accepts, for the hint under a refused one: a string column compared to
 * a word, and a feature (`features.difficulty`) or a number column compared to a number.
 */
export function exampleFilter(kinds: ReadonlyMap<string, ColumnKind>): string {
  const named = [...kinds].filter(([name]) => PLAIN_NAME.test(name));
  const text = kinds.get('taskset') === 'string' ? 'taskset' : named.find(([, k]) => k === 'string')?.[0];
  const featureKind = kinds.get('features');
  const number =
    featureKind === 'map' || featureKind === 'json'
      ? 'features.difficulty'
      : (['reward', 'step'].find((n) => kinds.get(n) === 'number') ??
        named.find(([, k]) => k === 'number')?.[0]);
  const parts = [
    text ? `${text} = '${text === 'taskset' ? 'gsm8k' : 'x'}'` : null,
    number ? `${number} > 0.5` : null,
  ].filter((p) => p !== null);
  return parts.join(' AND ');
}

/** The `--where` language (src/cli/where-filter.ts), a bad expression answered as a 400 naming `where`. */
export function whereSql(text: string, kinds: ReadonlyMap<string, ColumnKind>): string {
  try {
    return whereToSql(text, kinds);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    const example = exampleFilter(kinds);
    throw new HttpError({
      status: 400,
      code: 'bad_filter',
      field: 'where',
      message: err.message.replace(/^--where: /, ''),
      hint: `${example ? `e.g. ${example} — ` : ''}see docs/cli-filters.md`,
    });
  }
}

/** Check out `version` (number or tag) on this handle; a missing one is a 404 naming what exists. */
export async function checkoutVersion(table: Table, version: string | undefined): Promise<number> {
  if (version === undefined || version === '') return table.version();
  try {
    return await checkoutChecked(table, version);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    throw new HttpError({ status: 404, code: 'unknown_version', field: 'version', message: err.message });
  }
}

/** Whether `column` carries a full-text (inverted) index. */
export async function hasFtsIndex(table: Table, column: string): Promise<boolean> {
  const indices = await table.listIndices();
  return indices.some((i) => i.indexType === 'FTS' && i.columns.includes(column));
}

const likeEscape = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`).replace(/'/g, "''");

/** Columns a page shows: numeric lists (tokens, logprobs, embeddings) stay for detail views. */
export function pageColumns(schema: { fields: readonly { name: string; type: unknown }[] }): string[] {
  return schema.fields
    .filter((f) => !/List<(Float|Int|Uint)/i.test(String(f.type)) && !/^FixedSizeList/i.test(String(f.type)))
    .map((f) => f.name);
}

/**
 * One page without reading the table whole: LanceDB applies the filter, offset and limit. Sorting
 * reads only the sort column (with row ids) of the matching rows, orders those, then takes the
 * page's rows by id — one column of a million rows, not a million rows.
 */
export async function readPage(table: Table, req: PageRequest): Promise<Page> {
  const version = await checkoutVersion(table, req.version);
  const schema = await table.schema();
  const kinds = columnKinds(schema);
  const parts: string[] = [];
  if (req.where !== undefined && req.where.trim() !== '') parts.push(whereSql(req.where, kinds));
  let search: Page['search'] = null;
  const q = req.q?.trim() ?? '';
  const fts = q !== '' && kinds.get('prompt') === 'string' && (await hasFtsIndex(table, 'prompt'));
  if (q !== '') {
    if (kinds.get('prompt') !== 'string')
      throw new HttpError({
        status: 400,
        code: 'invalid_request',
        field: 'q',
        message: `table '${table.name}' has no text column 'prompt' to search`,
        hint: 'use where= with LIKE on one of its text columns',
      });
    if (!fts) parts.push(`prompt LIKE '%${likeEscape(q)}%'`);
    search = fts ? 'fts' : 'substring';
  }
  const filter = parts.length === 0 ? null : parts.map((p) => `(${p})`).join(' AND ');
  const columns = pageColumns(schema);
  if (req.sort !== undefined && req.sort !== '') {
    const kind = kinds.get(req.sort);
    if (kind === undefined || kind === 'other')
      throw new HttpError({
        status: 400,
        code: 'invalid_request',
        field: 'sort',
        message: `cannot sort by '${req.sort}'`,
        hint: `sortable columns: ${columns.join(', ')}`,
      });
    if (fts)
      throw new HttpError({
        status: 400,
        code: 'invalid_request',
        field: 'sort',
        message: 'full-text results come ranked by relevance and cannot be sorted by a column',
        hint: 'drop sort=, or search with where= prompt LIKE',
      });
    return { version, filter, search, ...(await sortedPage(table, req, req.sort, filter, columns)) };
  }
  let query = table.query();
  if (fts) query = query.fullTextSearch(q, { columns: ['prompt'] });
  if (filter) query = query.where(filter);
  const data = await query
    .select(fts ? [...columns, '_score'] : columns)
    .offset(req.offset)
    .limit(req.limit + 1)
    .toArrow();
  const rows = jsonRows(data, 400).map(({ _score: _s, ...r }) => r);
  return { version, filter, search, rows: rows.slice(0, req.limit), hasMore: rows.length > req.limit };
}

async function sortedPage(
  table: Table,
  req: PageRequest,
  sort: string,
  filter: string | null,
  columns: string[],
): Promise<{ rows: Record<string, unknown>[]; hasMore: boolean }> {
  let keysQuery = table.query().select([sort]).withRowId();
  if (filter) keysQuery = keysQuery.where(filter);
  const keys = await keysQuery.toArrow();
  const ids = keys.getChild('_rowid')!;
  const vals = keys.getChild(sort)!;
  const order = Array.from({ length: keys.numRows }, (_, i) => i);
  const dir = req.desc ? -1 : 1;
  const at = (i: number) => {
    const v = vals.get(i) as unknown;
    return typeof v === 'bigint' ? Number(v) : (v as number | string | boolean | null);
  };
  const cached = order.map(at);
  // Nulls last whichever the direction; ties keep the table's order (a stable sort).
  order.sort((a, b) => {
    const x = cached[a];
    const y = cached[b];
    if (x === y) return a - b;
    if (x === null || x === undefined) return 1;
    if (y === null || y === undefined) return -1;
    return (x < y ? -1 : 1) * dir;
  });
  const pageIdx = order.slice(req.offset, req.offset + req.limit);
  if (pageIdx.length === 0) return { rows: [], hasMore: false };
  const rowIds = pageIdx.map((i) => ids.get(i) as bigint);
  const data = await table
    .takeRowIds(rowIds)
    .select([...columns])
    .withRowId()
    .toArrow();
  const byId = new Map(jsonRows(data, 400).map((r) => [String(r._rowid), r]));
  const rows = rowIds.map((id) => {
    const { _rowid: _r, ...row } = byId.get(String(Number(id))) ?? {};
    return row;
  });
  return { rows, hasMore: req.offset + req.limit < order.length };
}

/** How many rows match (a separate call: the page itself never waits for a count). */
export async function countMatching(
  table: Table,
  req: Omit<PageRequest, 'offset' | 'limit'>,
): Promise<number> {
  await checkoutVersion(table, req.version);
  const kinds = columnKinds(await table.schema());
  const parts: string[] = [];
  if (req.where !== undefined && req.where.trim() !== '') parts.push(whereSql(req.where, kinds));
  const q = req.q?.trim() ?? '';
  if (q !== '' && kinds.get('prompt') === 'string') {
    if (await hasFtsIndex(table, 'prompt')) {
      let query = table
        .query()
        .fullTextSearch(q, { columns: ['prompt'] })
        .select(['prompt']);
      if (parts.length > 0) query = query.where(parts.join(' AND '));
      return (await query.limit(1_000_000).toArrow()).numRows;
    }
    parts.push(`prompt LIKE '%${likeEscape(q)}%'`);
  }
  return table.countRows(parts.length === 0 ? undefined : parts.map((p) => `(${p})`).join(' AND '));
}
