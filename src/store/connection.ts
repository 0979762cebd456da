import { statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import * as lancedb from '@lancedb/lancedb';
import type { Schema } from 'apache-arrow';
import { ConfigError, DataError } from '../core/errors.ts';
import { commonJsArrow } from '../io/arrow-ipc.ts';

// LanceDB serializes `add`/`mergeInsert`/`createTable` data with apache-arrow's CommonJS writer:
// install the all-null boolean fix (io/arrow-ipc.ts) on it before any connection can write.
commonJsArrow();

// Lance logs "No existing dataset … will be created" at WARN on every new table; keep the CLI quiet
// unless the user asked for logs.
process.env.LANCEDB_LOG ??= 'error';

export const DEFAULT_DB_DIR = './.winnow/db';

const connections = new Map<string, Promise<lancedb.Connection>>();
const storageOptions = new Map<string, Record<string, string>>();
let defaultStorageOptions: Record<string, string> = {};

/** `s3://bucket/path`, `gs://…`, `az://…`, `memory://…`: a database LanceDB opens by URI, not a folder. */
export const isDatabaseUri = (dir: string): boolean => /^[a-z][a-z0-9+.-]*:\/\//i.test(dir);

/** How a database is named: a URI as given, a folder by its absolute path. */
export const databaseKey = (dir: string): string => (isDatabaseUri(dir) ? dir : resolve(dir));

/**
 * LanceDB storage options (credentials, endpoint, region…) for every connection this process opens
 * afterwards — to the database `dir` only, or (no `dir`) to any database. Set from the config's
 * `storageOptions` and `--storage-option KEY=VALUE` (src/store/storage-options.ts).
 */
export function setStorageOptions(options: Record<string, string>, dir?: string): void {
  if (dir === undefined) {
    defaultStorageOptions = { ...options };
    connections.clear();
    return;
  }
  const key = databaseKey(dir);
  if (Object.keys(options).length === 0) storageOptions.delete(key);
  else storageOptions.set(key, { ...options });
  connections.delete(key);
}

/** The storage options a connection to `dir` is opened with (tests, logs). */
export function storageOptionsFor(dir: string): Record<string, string> {
  return { ...defaultStorageOptions, ...storageOptions.get(databaseKey(dir)) };
}

/**
 * One LanceDB connection per database (cached by absolute path or URI). `readConsistencyInterval: 0`
 * makes every read see commits from other processes (explorers, compactors), at a small per-read cost.
 * An object store that cannot be reached fails with one line naming the URI.
 */
export function connect(dir: string = DEFAULT_DB_DIR): Promise<lancedb.Connection> {
  const key = databaseKey(dir);
  let conn = connections.get(key);
  if (!conn) {
    if (!isDatabaseUri(key)) refuseFileAsDatabase(key);
    const options = storageOptionsFor(key);
    const withOptions = Object.keys(options).length > 0 ? { storageOptions: options } : {};
    conn = lancedb.connect(key, { readConsistencyInterval: 0, ...withOptions }).catch((err: unknown) => {
      connections.delete(key);
      if (!isDatabaseUri(key)) throw err;
      throw new DataError({
        file: key,
        message: `cannot open the database: ${storeFailure(err)} (check the URI, the storage options — endpoint, region, credentials — and that the store is reachable)`,
      });
    });
    connections.set(key, conn);
  }
  return conn;
}

/**
 * A database is a folder of tables: a regular file at its path (or at a folder above it) would
 * otherwise fail deep in LanceDB with a Rust debug structure. Said in one line, before connecting.
 */
export function refuseFileAsDatabase(dir: string): void {
  for (let at = dir; ; at = dirname(at)) {
    let isFile = false;
    try {
      isFile = !statSync(at).isDirectory();
    } catch {
      if (dirname(at) !== at) continue; // not there yet: look at the folder above
      return;
    }
    if (!isFile) return;
    const why = at === dir ? 'is a file, not a folder' : `cannot be made: ${at} is a file`;
    throw new ConfigError({
      path: '',
      file: dir,
      message: `${why}; a database (--db, or the config's db) is a folder of tables`,
      hint: 'pass a folder path, e.g. --db ./.winnow/db; a missing folder is created',
    });
  }
}

/**
 * The useful part of an object-store error, in one line: what was asked of whom and why it failed
 * (the store's HTTP status and S3 error code, or missing credentials), then what to check.
 */
export function storeFailure(err: unknown): string {
  const text = String(err).replace(/\s+/g, ' ');
  if (/Failed to get AWS credentials|NoCredentialsError|credentials? (?:not found|provider)/i.test(text))
    return 'no credentials for the object store (set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY in the environment, or the storage options aws_access_key_id and aws_secret_access_key)';
  const uri = /uri: Some\(([^)]+)\)/.exec(text)?.[1];
  const status = /status: (\d{3})/.exec(text)?.[1];
  const code = /<Code>([^<]+)<\/Code>/.exec(text)?.[1];
  const message = /<Message>([^<]+)<\/Message>/.exec(text)?.[1];
  const why =
    (status ? `HTTP ${status}${code ? ` ${code}` : ''}${message ? `: ${message}` : ''}` : undefined) ??
    /message: "([^"]+)"/.exec(text)?.[1] ??
    /ConnectError\("([^"]+)"/.exec(text)?.[1];
  if (uri) return `request to ${uri} failed${why ? ` (${why})` : ''}${hintFor(code, status)}`;
  return text.length > 240 ? `${text.slice(0, 240)}…` : text;
}

/** What to do about an S3 error code the store answered with. */
function hintFor(code: string | undefined, status: string | undefined): string {
  if (code === 'NoSuchBucket') return '; create the bucket first, or fix its name in the URI';
  if (code === 'InvalidAccessKeyId' || code === 'SignatureDoesNotMatch' || status === '403')
    return '; check the credentials (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY) and the region';
  return '';
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
