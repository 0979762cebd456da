import { resolve } from 'node:path';
import * as lancedb from '@lancedb/lancedb';
import type { Schema } from 'apache-arrow';

// Lance logs "No existing dataset … will be created" at WARN on every new table; keep the CLI quiet
// unless the user asked for logs.
process.env.LANCEDB_LOG ??= 'error';

export const DEFAULT_DB_DIR = './.winnow/db';

const connections = new Map<string, Promise<lancedb.Connection>>();

/**
 * One LanceDB connection per database folder (cached by absolute path). `readConsistencyInterval: 0`
 * makes every read see commits from other processes (explorers, compactors), at a small per-read cost.
 */
export function connect(dir: string = DEFAULT_DB_DIR): Promise<lancedb.Connection> {
  const abs = resolve(dir);
  let conn = connections.get(abs);
  if (!conn) {
    conn = lancedb.connect(abs, { readConsistencyInterval: 0 });
    connections.set(abs, conn);
  }
  return conn;
}

/**
 * Open a table that `tableNames()` lists. A process killed while creating a table leaves its folder
 * with no committed version: that holds no data, so it is dropped and null is returned (the caller
 * creates the table again). Any other failure is a real error and is thrown.
 */
export async function openListedTable(conn: lancedb.Connection, name: string): Promise<lancedb.Table | null> {
  try {
    return await conn.openTable(name);
  } catch (err) {
    if (!/_versions/.test(String(err))) throw err;
    await conn.dropTable(name).catch(() => undefined);
    return null;
  }
}

/** Open a table, creating it empty with `schema` when it does not exist yet. */
export async function openOrCreateTable(
  conn: lancedb.Connection,
  name: string,
  schema: Schema,
): Promise<lancedb.Table> {
  if ((await conn.tableNames()).includes(name)) {
    const table = await openListedTable(conn, name);
    if (table) return table;
  }
  try {
    return await conn.createEmptyTable(name, schema, { mode: 'create', existOk: true });
  } catch (err) {
    // Another process may have created it between our check and our create.
    if ((await conn.tableNames()).includes(name)) return conn.openTable(name);
    throw err;
  }
}

export async function openTableIfExists(
  conn: lancedb.Connection,
  name: string,
): Promise<lancedb.Table | null> {
  const names = await conn.tableNames();
  return names.includes(name) ? conn.openTable(name) : null;
}

/** Forget cached connections (tests that delete database folders). */
export function closeAllConnections(): void {
  connections.clear();
}
