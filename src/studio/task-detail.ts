import type { Table } from '@lancedb/lancedb';
import type * as arrow from 'apache-arrow';
import { readRuns } from '../inspect/run-views.ts';
import { sqlString } from '../store/sql.ts';
import { listEdits } from './edits-api.ts';
import { jsonCell } from './json-cells.ts';
import { checkoutVersion } from './rows-query.ts';
import { selectorEstimates } from './selector-estimates.ts';
import { openStudioTable, type StudioContext, studioConnection } from './studio-context.ts';
import { requireTaskRow, requireTaskTable } from './task-edits.ts';

/** One step of a task's history in a run: how many groups picked it and their mean reward. */
export interface SelectionPoint {
  step: number;
  picks: number;
  rollouts: number;
  meanReward: number | null;
}

/** The id orders of recently viewed task-table versions (see `cachedTaskOrders` below). */
const ORDERS = new Map<string, Promise<string[][]>>();

/**
 * A task's page: the task, its etag (for edits), its edits, and for each run whose buffer holds its
 * rollouts the selection history read from that buffer (how often picked per step, pass rate as
 * mean reward), the selector's own estimate at each step it saved a state (selector_states), and its
 * latest rollouts.
 */
export async function taskDetail(ctx: StudioContext, tableName: string, id: string, version?: number) {
  const table = await openStudioTable(ctx, tableName);
  await requireTaskTable(table);
  if (version !== undefined) await checkoutVersion(table, String(version));
  const row = await requireTaskRow(table, id);
  const conn = await studioConnection(ctx);
  const names = new Set(await conn.tableNames());
  const runs = [];
  const tableVersion = await table.version();
  // Candidate orders of the run's task list (a saved selector state names it by digest only):
  // this table's ids as stored, then sorted. Read only when a run saved selector states, and kept
  // per table version (a million ids are not re-read for every task page).
  const taskOrders = () => cachedTaskOrders(table, `${ctx.dbDir}\0${tableName}\0${tableVersion}`);
  for (const run of await readRuns(ctx.dbDir)) {
    if (!run.bufferTable || !names.has(run.bufferTable)) continue;
    const buffer = await conn.openTable(run.bufferTable);
    const data = await buffer
      .query()
      .where(`task_id = ${sqlString(id)}`)
      .select(['id', 'group_id', 'explore_step', 'reward', 'advantage', 'response'])
      .toArrow();
    // The selector's own estimate of this task at each saved step (BOTS posterior, pass-rate counts).
    const estimates = await selectorEstimates(conn, run.runId, id, taskOrders);
    if (data.numRows === 0 && !estimates?.points.length) continue;
    const { history, rollouts } = selectionHistory(data);
    runs.push({
      runId: run.runId,
      table: run.bufferTable,
      history,
      selector: estimates,
      rollouts: rollouts.slice(-20),
    });
  }
  return {
    table: tableName,
    version: tableVersion,
    task: row.task,
    runId: row.runId,
    etag: row.etag,
    edits: await listEdits(ctx, { table: tableName, rowId: id }),
    runs,
  };
}

/**
 * This table's ids as stored, then sorted: the candidate orders of a run's task list (a saved
 * selector state names it by digest only). Kept per table version, so a million ids are not re-read
 * for every task page.
 */
function cachedTaskOrders(table: Table, key: string): Promise<string[][]> {
  let orders = ORDERS.get(key);
  if (!orders) {
    orders = table
      .query()
      .select(['id'])
      .toArrow()
      .then((t) => {
        const ids = Array.from(t.getChild('id')?.toArray() ?? [], (v) => String(v));
        return [ids, [...ids].sort()];
      });
    ORDERS.set(key, orders);
    orders.catch(() => ORDERS.delete(key));
    for (const k of ORDERS.keys()) if (ORDERS.size > 4) ORDERS.delete(k);
  }
  return orders;
}

/** A task's rollouts in one run's buffer, and per explore step how often it was picked and its mean reward. */
function selectionHistory(data: arrow.Table): {
  history: SelectionPoint[];
  rollouts: Record<string, unknown>[];
} {
  const byStep = new Map<number, { groups: Set<string>; rewards: number[] }>();
  const rollouts: Record<string, unknown>[] = [];
  for (let i = 0; i < data.numRows; i++) {
    const step = Number(data.getChild('explore_step')!.get(i));
    const reward = Number(data.getChild('reward')!.get(i));
    const s = byStep.get(step) ?? { groups: new Set(), rewards: [] };
    s.groups.add(String(data.getChild('group_id')!.get(i)));
    if (Number.isFinite(reward)) s.rewards.push(reward);
    byStep.set(step, s);
    rollouts.push({
      id: data.getChild('id')!.get(i),
      groupId: data.getChild('group_id')!.get(i),
      step,
      reward: Number.isFinite(reward) ? reward : null,
      advantage: jsonCell(data.getChild('advantage')!.get(i)),
      response: jsonCell(data.getChild('response')!.get(i), 400),
    });
  }
  const history = [...byStep]
    .sort((a, b) => a[0] - b[0])
    .map(([step, s]) => ({
      step,
      picks: s.groups.size,
      rollouts: s.rewards.length,
      meanReward: s.rewards.length === 0 ? null : s.rewards.reduce((a, b) => a + b, 0) / s.rewards.length,
    }));
  return { history, rollouts };
}
