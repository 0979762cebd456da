import { readRuns } from '../inspect/run-views.ts';
import { reasonClass } from '../operators/step-metrics.ts';
import { sqlString } from '../store/sql.ts';
import { jsonCell } from './json-cells.ts';
import { openStudioTable, type StudioContext } from './studio-context.ts';

const EXAMPLES = 3;

/** The group a rejected row's payload names (`{groupId, taskId, …}`: a group the run dropped whole). */
export function payloadGroup(payload: unknown): { groupId: string; taskId: string | null } | null {
  if (typeof payload !== 'string' || !payload.startsWith('{')) return null;
  try {
    const p = JSON.parse(payload) as { groupId?: unknown; taskId?: unknown };
    return typeof p.groupId === 'string'
      ? { groupId: p.groupId, taskId: typeof p.taskId === 'string' ? p.taskId : null }
      : null;
  } catch {
    return null;
  }
}

/** Runs that wrote rows into the table, with their row counts, most rows first. */
async function runsOf(table: Awaited<ReturnType<typeof openStudioTable>>) {
  const data = await table.query().select(['run_id']).toArrow();
  const counts = new Map<string, number>();
  const col = data.getChild('run_id');
  for (let i = 0; i < data.numRows; i++) {
    const id = String(col?.get(i) ?? '');
    counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return [...counts]
    .map(([runId, count]) => ({ runId, count }))
    .sort((a, b) => b.count - a.count || a.runId.localeCompare(b.runId));
}

/**
 * Rejected rows grouped by step and reason class (the reason with its row-specific parts — ids,
 * quoted values — folded), largest group first, each with a count and a few examples that name
 * their source file and line, and the group they dropped (with the run's buffer table) where the
 * row is a whole group. Reads the small columns of every row and the payload of examples only.
 */
export async function rejectedGroups(ctx: StudioContext, o: { table: string; runId?: string | undefined }) {
  const table = await openStudioTable(ctx, o.table);
  let q = table.query().select(['step', 'reason', 'run_id']).withRowId();
  if (o.runId) q = q.where(`run_id = ${sqlString(o.runId)}`);
  const data = await q.toArrow();
  const groups = new Map<string, { step: string; reason: string; count: number; rowIds: bigint[] }>();
  for (let i = 0; i < data.numRows; i++) {
    const step = String(data.getChild('step')!.get(i));
    const reason = reasonClass(String(data.getChild('reason')!.get(i)));
    const key = `${step}\u0000${reason}`;
    const g = groups.get(key) ?? { step, reason, count: 0, rowIds: [] };
    g.count++;
    if (g.rowIds.length < EXAMPLES) g.rowIds.push(data.getChild('_rowid')!.get(i) as bigint);
    groups.set(key, g);
  }
  const buffers = new Map((await readRuns(ctx.dbDir)).map((r) => [r.runId, r.bufferTable]));
  const sorted = [...groups.values()].sort((a, b) => b.count - a.count || a.step.localeCompare(b.step));
  const out = [];
  for (const g of sorted) {
    const ex = await table
      .takeRowIds(g.rowIds)
      .select(['reason', 'file', 'row', 'row_id', 'payload', 'run_id'])
      .toArrow();
    const examples = ex.toArray().map((r) => {
      const row = r.toJSON() as Record<string, unknown>;
      const group = payloadGroup(row.payload);
      const buffer = buffers.get(String(row.run_id ?? '')) ?? null;
      return {
        ...(jsonCell(row, 300) as Record<string, unknown>),
        group: group && buffer ? { table: buffer, groupId: group.groupId } : null,
      };
    });
    out.push({ step: g.step, reason: g.reason, count: g.count, examples });
  }
  return {
    table: o.table,
    run: o.runId ?? null,
    total: data.numRows,
    runs: await runsOf(table),
    groups: out,
  };
}
