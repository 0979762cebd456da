import type { Connection, Table } from '@lancedb/lancedb';
import { closestNames } from '../core/suggest.ts';
import { HttpError } from '../serve/http-error.ts';
import { connect } from '../store/connection.ts';

/** What every Studio handler works against: the database, the run folders and who is editing. */
export interface StudioContext {
  dbDir: string;
  runsDir: string;
  /** The folder the Studio was started in: relative paths recorded by runs resolve against it. */
  rootDir: string;
  readOnly: boolean;
  /** The name edits are recorded under (`--user`). */
  user: string;
}

/** Table names as LanceDB writes them: no path separators, no `..` — a name never leaves the database. */
const TABLE_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;

export function checkTableName(name: string, field = 'table'): void {
  if (name.includes('..') || name.includes('/') || name.includes('\\'))
    throw new HttpError({
      status: 400,
      code: 'path_outside_database',
      field,
      message: `table '${name}' names a path; tables are plain names inside the database`,
      hint: 'GET /api/tables lists them',
    });
  if (!TABLE_NAME.test(name))
    throw new HttpError({
      status: 400,
      code: 'invalid_request',
      field,
      message: `'${name}' is not a table name (letters, digits, _ . -)`,
      hint: 'GET /api/tables lists them',
    });
}

export async function studioConnection(ctx: StudioContext): Promise<Connection> {
  return connect(ctx.dbDir);
}

/** An existing table, or a 404 naming the nearest tables. Never creates one. */
export async function openStudioTable(ctx: StudioContext, name: string, field = 'table'): Promise<Table> {
  checkTableName(name, field);
  const conn = await studioConnection(ctx);
  const names = await conn.tableNames();
  if (!names.includes(name)) {
    const near = closestNames(name, names);
    throw new HttpError({
      status: 404,
      code: 'unknown_table',
      field,
      message: `no table '${name}' in the database`,
      hint:
        near.length > 0
          ? `did you mean ${near.map((n) => `'${n}'`).join(', ')}?`
          : `tables: ${names.join(', ') || 'none'}`,
    });
  }
  return conn.openTable(name);
}

/** Refuse writes in `--read-only` mode (403, nothing changed). */
export function checkWritable(ctx: StudioContext): void {
  if (ctx.readOnly)
    throw new HttpError({
      status: 403,
      code: 'read_only',
      message: 'the Studio was started with --read-only; edits are refused',
      hint: 'restart without --read-only to edit',
    });
}

/** A 409: the row changed since the client read it; nothing was written. */
export function staleEdit(what: string, sent: string, current: string): HttpError {
  return new HttpError({
    status: 409,
    code: 'stale_edit',
    field: 'etag',
    message: `${what} changed since you read it (you sent etag ${sent}, it is now ${current}); nothing was written`,
    hint: 'reload the row, re-apply your change and send the new etag',
  });
}
