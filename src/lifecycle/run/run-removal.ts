import { existsSync, rmSync } from 'node:fs';
import { connect } from '../../store/connection.ts';
import { type RunRecord, RunTable } from '../../store/run-table.ts';
import { sqlString } from '../../store/sql.ts';
import { reserveFile } from './rft-failure.ts';
import { runPlaces } from './run-plan.ts';

/** What removing a run deleted, for the log. */
export interface RemovedRun {
  runId: string;
  tables: Array<{ name: string; rows: number }>;
  rejectedRows: number;
  runDir: string | null;
}

/**
 * Delete everything a run owns: its buffer table and use journal, its rows in `rejected` and
 * `selector_states`, its run folder, its storage reserve and its record. Only ever called for a run the user named
 * (`--overwrite RUN`, `winnow gc RUN…`), after the command was validated.
 */
export async function removeRun(dbDir: string, record: RunRecord): Promise<RemovedRun> {
  const conn = await connect(dbDir);
  const names = await conn.tableNames();
  const places = runPlaces(record);
  const tables: RemovedRun['tables'] = [];
  if (record.kind === 'rft' && places.bufferTable) {
    for (const name of [places.bufferTable, `${places.bufferTable}_uses`]) {
      if (!names.includes(name)) continue;
      const rows = await (await conn.openTable(name)).countRows();
      await conn.dropTable(name);
      tables.push({ name, rows });
    }
  }
  const where = `run_id = ${sqlString(record.runId)}`;
  let rejectedRows = 0;
  if (names.includes('rejected')) {
    const t = await conn.openTable('rejected');
    rejectedRows = await t.countRows(where);
    if (rejectedRows > 0) await t.delete(where);
  }
  if (names.includes('selector_states')) await (await conn.openTable('selector_states')).delete(where);
  let runDir: string | null = null;
  if (places.runDir && existsSync(places.runDir)) {
    rmSync(places.runDir, { recursive: true, force: true });
    runDir = places.runDir;
  }
  // The room a killed run had set aside on the database's disk (src/lifecycle/run/rft-failure.ts).
  if (!dbDir.includes('://')) rmSync(reserveFile(dbDir, record.runId), { force: true });
  await (await RunTable.open(dbDir)).delete(record.runId);
  return { runId: record.runId, tables, rejectedRows, runDir };
}

export function describeRemoval(r: RemovedRun): string {
  const parts = [
    ...r.tables.map((t) => `table '${t.name}' (${t.rows} rows)`),
    ...(r.rejectedRows > 0 ? [`${r.rejectedRows} rejected row(s)`] : []),
    ...(r.runDir ? [`folder ${r.runDir}`] : []),
  ];
  return `removed run '${r.runId}'${parts.length > 0 ? `: ${parts.join(', ')}` : ''}`;
}
