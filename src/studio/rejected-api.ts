import { sqlString } from '../buffer/sql.ts';
import { reasonClass } from '../operators/step-metrics.ts';
import { jsonCell } from './json-cells.ts';
import { openStudioTable, type StudioContext } from './studio-context.ts';

const EXAMPLES = 3;

/**
 * Rejected rows grouped by step and reason class (the reason with its row-specific parts — ids,
 * quoted values — folded), largest group first, each with a count and a few examples that name
 * their source file and line. Reads the small columns of every row and the payload of examples only.
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
  const sorted = [...groups.values()].sort((a, b) => b.count - a.count || a.step.localeCompare(b.step));
  const out = [];
  for (const g of sorted) {
    const ex = await table
      .takeRowIds(g.rowIds)
      .select(['reason', 'file', 'row', 'row_id', 'payload', 'run_id'])
      .toArrow();
    out.push({
      step: g.step,
      reason: g.reason,
      count: g.count,
      examples: ex.toArray().map((r) => jsonCell(r.toJSON(), 300)),
    });
  }
  return { table: o.table, total: data.numRows, groups: out };
}
