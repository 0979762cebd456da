import { existsSync } from 'node:fs';
import { closestNames } from '../core/suggest.ts';
import { UsageError } from '../core/usage-error.ts';
import { viewRun } from '../inspect/run-views.ts';
import { readableDbDir } from '../inspect/table-target.ts';
import { runPlaces } from '../lifecycle/run/run-plan.ts';
import { describeRemoval, type RemovedRun, removeRun } from '../lifecycle/run/run-removal.ts';
import { connect } from '../store/connection.ts';
import { type RunRecord, RunTable } from '../store/run-table.ts';
import { sqlString } from '../store/sql.ts';
import { parseCommand } from './command-spec.ts';
import { statusText } from './runs-command.ts';
import { GC_SPEC } from './specs/gc.ts';

/** What removing `record` would delete, counted without deleting (the dry run). */
async function previewRemoval(dbDir: string, record: RunRecord): Promise<RemovedRun> {
  const conn = await connect(dbDir);
  const names = await conn.tableNames();
  const places = runPlaces(record);
  const tables: RemovedRun['tables'] = [];
  if (record.kind === 'rft' && places.bufferTable)
    for (const name of [places.bufferTable, `${places.bufferTable}_uses`])
      if (names.includes(name)) tables.push({ name, rows: await (await conn.openTable(name)).countRows() });
  const rejectedRows = names.includes('rejected')
    ? await (await conn.openTable('rejected')).countRows(`run_id = ${sqlString(record.runId)}`)
    : 0;
  const runDir = places.runDir && existsSync(places.runDir) ? places.runDir : null;
  return { runId: record.runId, tables, rejectedRows, runDir };
}

/** A queued run's jobs in Redis go with it (best effort; the queue code loads only for such a run). */
async function removeQueuedJobs(r: RunRecord): Promise<string | undefined> {
  if (!r.summary.includes('"queue"')) return undefined;
  const { removeQueuedRunJobs } = await import('../scale/run-jobs.ts');
  return removeQueuedRunJobs(r);
}

export async function gcCommand(argv: string[]): Promise<number> {
  const parsed = parseCommand(GC_SPEC, argv);
  if (!parsed) return 0;
  const { values, positionals } = parsed;
  if (positionals.length === 0 && !values.failed)
    throw new UsageError(
      'gc needs the runs to delete: winnow gc RUN [RUN…] (or --failed); winnow runs lists them',
    );
  const dbDir = readableDbDir(values.db);
  const records = await RunTable.readAll(dbDir);
  const byId = new Map(records.map((r) => [r.runId, r] as const));
  const ids = records.map((r) => r.runId);

  // Validate every name before deleting any.
  const unknown = positionals.filter((id) => !byId.has(id));
  if (unknown.length > 0) {
    const near = closestNames(unknown[0]!, ids);
    const hint =
      near.length > 0
        ? `did you mean ${near.map((n) => `'${n}'`).join(', ')}?`
        : ids.length > 0
          ? 'winnow runs lists them'
          : 'there are no runs';
    throw new UsageError(
      `no run ${unknown.map((u) => `'${u}'`).join(', ')} in ${dbDir}; ${hint} (nothing was deleted)`,
    );
  }
  const selected = new Map<string, RunRecord>();
  for (const id of positionals) selected.set(id, byId.get(id)!);
  if (values.failed)
    for (const r of records) {
      const status = viewRun(r).status;
      if (status === 'failed' || status === 'interrupted') selected.set(r.runId, r);
    }
  const live = [...selected.values()].filter((r) => viewRun(r).status === 'running');
  if (live.length > 0)
    throw new UsageError(
      `run ${live.map((r) => `'${r.runId}'`).join(', ')} is still running; stop it first (nothing was deleted)`,
    );
  if (selected.size === 0) {
    process.stdout.write(`no failed or interrupted runs in ${dbDir}\n`);
    return 0;
  }

  const dry = values['dry-run'] || !values.yes;
  for (const r of selected.values()) {
    const what = `${r.runId} [${r.kind}, ${statusText(viewRun(r))}]`;
    if (dry) {
      const preview = describeRemoval(await previewRemoval(dbDir, r)).replace(/^removed run '[^']*'/, '');
      process.stdout.write(`would remove ${what}${preview}\n`);
    } else {
      const line = describeRemoval(await removeRun(dbDir, r)).replace(/^removed run '[^']*'/, '');
      process.stdout.write(`removed ${what}${line}\n`);
      const jobs = await removeQueuedJobs(r);
      if (jobs) process.stdout.write(`${jobs}\n`);
    }
  }
  if (dry) process.stdout.write(`dry run: nothing deleted; add --yes to delete ${selected.size} run(s)\n`);
  return 0;
}
