import { existsSync, statSync } from 'node:fs';
import type { Table } from '@lancedb/lancedb';
import { engineErrorLine, storageFaultOf } from '../core/engine-error.ts';
import { WinnowError } from '../core/errors.ts';
import { resolveDbDir } from '../core/places.ts';
import { closestNames } from '../core/suggest.ts';
import { UsageError } from '../core/usage-error.ts';
import { runPlaces } from '../lifecycle/run/run-plan.ts';
import { connect } from '../store/connection.ts';
import { type RunRecord, RunTable } from '../store/run-table.ts';
import { sqlString } from '../store/sql.ts';
import { columnKinds, whereToSql } from './where-filter.ts';

/**
 * What inspect and export read: a database folder that exists, a table in it, optionally at a
 * version or tag, and a row filter. Every part is checked here, before LanceDB sees it, so a bad
 * flag is one line naming what exists — and reading never creates or changes anything.
 */

/** The `--db` folder (resolved as core/places.ts says), which must exist: a missing one is not created. */
export function readableDbDir(db: string | undefined): string {
  const dir = resolveDbDir({ flag: db });
  if (!existsSync(dir))
    throw new UsageError(`no database folder at ${dir} (pass --db DIR; winnow run creates it)`);
  if (!statSync(dir).isDirectory())
    throw new UsageError(
      `${dir} is a file, not a database folder (pass --db DIR, the folder winnow run wrote)`,
    );
  return dir;
}

const quoted = (names: readonly string[]) => names.map((n) => `'${n}'`).join(', ');

/** An existing table, or a UsageError naming the nearest tables. */
export async function openExisting(dbDir: string, name: string): Promise<Table> {
  const conn = await connect(dbDir);
  const names = await conn.tableNames();
  if (!names.includes(name)) {
    const near = closestNames(name, names);
    throw new UsageError(
      `no table '${name}' in ${dbDir} (${near.length > 0 ? `did you mean ${quoted(near)}?` : `tables: ${names.join(', ') || 'none'}`})`,
    );
  }
  return conn.openTable(name);
}

/** `1–3, 5, 7–12` */
export function versionRanges(versions: readonly number[]): string {
  const sorted = [...versions].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++;
    parts.push(i === j ? String(sorted[i]) : `${sorted[i]}–${sorted[j]}`);
    i = j + 1;
  }
  return parts.join(', ');
}

/**
 * Check out `version` (a number or a tag) after checking it exists; returns the version number now
 * read. Callers must `checkoutLatest()` when done.
 */
export async function checkoutChecked(table: Table, version: string): Promise<number> {
  const versions = (await table.listVersions()).map((v) => v.version);
  const tags = await (await table.tags()).list();
  const tagNames = Object.keys(tags).sort();
  const shownTags =
    tagNames.length === 0
      ? 'none'
      : tagNames.length > 6
        ? `${tagNames.slice(0, 6).join(', ')}, … ${tagNames.length - 6} more`
        : tagNames.join(', ');
  const exists = `versions ${versionRanges(versions) || 'none'}; tags: ${shownTags}`;
  if (/^\d+$/.test(version)) {
    const n = Number(version);
    if (!versions.includes(n)) throw new UsageError(`table '${table.name}' has no version ${n} (${exists})`);
    await table.checkout(n);
    return n;
  }
  const tag = tags[version];
  if (!tag) {
    const near = closestNames(version, tagNames);
    throw new UsageError(
      `table '${table.name}' has no version or tag '${version}' (${near.length > 0 ? `did you mean ${quoted(near)}? ` : ''}${exists})`,
    );
  }
  await table.checkout(version);
  return tag.version;
}

/** The record of run `runId`, or a UsageError naming the nearest runs. */
export async function findRun(dbDir: string, runId: string): Promise<RunRecord> {
  const runs = await RunTable.readAll(dbDir);
  const run = runs.find((r) => r.runId === runId);
  if (run) return run;
  const ids = runs.map((r) => r.runId);
  const near = closestNames(runId, ids);
  throw new UsageError(
    `no run '${runId}' in ${dbDir} (${near.length > 0 ? `did you mean ${quoted(near)}?` : ids.length > 0 ? `runs: ${ids.slice(-6).join(', ')}` : 'no runs recorded; winnow runs lists them'})`,
  );
}

/** The table a run's rows are read from when `--table` is not given: an RFT run's own buffer. */
export function defaultTableOf(run: RunRecord | undefined, fallback: string): string {
  return (run && runPlaces(run).bufferTable) || fallback;
}

export interface FilterFlags {
  run?: RunRecord | undefined;
  taskset?: string | undefined;
  where?: string | undefined;
}

/**
 * The SQL filter for `--run`, `--taskset` and `--where` on `table` (null: every row), each checked
 * against the table's columns first. `--run` on the run's own buffer table needs no filter: every
 * row there is the run's.
 */
export async function rowFilter(table: Table, flags: FilterFlags): Promise<string | null> {
  const kinds = columnKinds(await table.schema());
  const parts: string[] = [];
  if (flags.run) {
    const own = runPlaces(flags.run).bufferTable === table.name;
    if (!own) {
      if (!kinds.has('run_id')) {
        const buffer = runPlaces(flags.run).bufferTable;
        throw new UsageError(
          `table '${table.name}' has no run_id column, so --run cannot select from it${buffer ? ` (run '${flags.run.runId}' wrote its experiences to '${buffer}': drop --table or pass --table ${buffer})` : ''}`,
        );
      }
      parts.push(`run_id = ${sqlString(flags.run.runId)}`);
    }
  }
  if (flags.taskset !== undefined) {
    if (!kinds.has('taskset'))
      throw new UsageError(`table '${table.name}' has no taskset column, so --taskset cannot select from it`);
    const tasksets = await distinctValues(table, 'taskset');
    if (!tasksets.includes(flags.taskset)) {
      const near = closestNames(flags.taskset, tasksets);
      throw new UsageError(
        `no rows for taskset '${flags.taskset}' in table '${table.name}' (${near.length > 0 ? `did you mean ${quoted(near)}? ` : ''}tasksets: ${tasksets.join(', ') || 'none'})`,
      );
    }
    parts.push(`taskset = ${sqlString(flags.taskset)}`);
  }
  if (flags.where !== undefined) parts.push(whereToSql(flags.where, kinds));
  return parts.length === 0 ? null : parts.map((p) => `(${p})`).join(' AND ');
}

/** The distinct values of a string column, sorted. */
async function distinctValues(table: Table, column: string): Promise<string[]> {
  const t = await table.query().select([column]).toArrow();
  const col = t.getChild(column);
  const seen = new Set<string>();
  for (let i = 0; i < t.numRows; i++) {
    const v = col?.get(i);
    if (v !== null && v !== undefined) seen.add(String(v));
  }
  return [...seen].sort();
}

/**
 * An engine (LanceDB) error as one line: the first line of its message, without the Rust source
 * locations and debug structures it carries. Our own errors pass through.
 */
export function engineError(err: unknown, doing: string): unknown {
  if (err instanceof WinnowError) return err;
  const fault = storageFaultOf(err);
  return new WinnowError(`${doing}: ${fault ? `${fault.what}; ${fault.hint}` : engineErrorLine(err)}`);
}
