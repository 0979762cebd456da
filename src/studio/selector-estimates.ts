import type { Connection } from '@lancedb/lancedb';
import type { z } from 'zod';
import { digestIds } from '../selectors/task-view.ts';
import { SelectorStateSchema } from '../selectors/types.ts';
import { sqlString } from '../store/sql.ts';

/** The selector's own estimate for one task at one saved step. */
export interface EstimatePoint {
  step: number;
  value: number | null;
}

/** A run's selector estimates of a task over its saved steps, or a note saying why there are none. */
export interface SelectorEstimates {
  selector: string | null;
  /** What the number is, e.g. `posterior mean α/(α+β)`. */
  estimate: string | null;
  points: EstimatePoint[];
  note: string | null;
}

/** The parts of a saved selector state the Studio reads (the rest is the selector's own business). */
const SavedState = SelectorStateSchema.pick({ n: true, digest: true, data: true });

const ARRAYS = {
  float64: Float64Array,
  float32: Float32Array,
  int32: Int32Array,
  uint32: Uint32Array,
  uint8: Uint8Array,
} as const;

/** One entry of an array the selector state codec wrote (`{ dtype, length, base64 }`), or undefined. */
function entryOf(value: unknown, k: number): number | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const { dtype, length, base64 } = value as { dtype?: unknown; length?: unknown; base64?: unknown };
  const Ctor = ARRAYS[dtype as keyof typeof ARRAYS];
  if (!Ctor || typeof length !== 'number' || typeof base64 !== 'string' || k >= length) return undefined;
  const bytes = Buffer.from(base64, 'base64');
  // Copy into an aligned buffer: a Buffer's offset into its pool need not suit the element size.
  const arr = new Ctor(new Uint8Array(bytes).buffer, 0, length);
  return Number(arr[k]);
}

/**
 * What a saved state says about task `k`, for the selectors whose state holds a per-task number:
 * a Beta posterior (BOTS: `alpha`, `beta`) or success counts (`succ`, `trials`).
 */
function estimateOf(
  data: Record<string, unknown>,
  k: number,
): { label: string; value: number | null } | null {
  if (data.alpha !== undefined && data.beta !== undefined) {
    const a = entryOf(data.alpha, k);
    const b = entryOf(data.beta, k);
    if (a === undefined || b === undefined) return null;
    return { label: 'posterior mean α/(α+β)', value: a + b > 0 ? a / (a + b) : null };
  }
  if (data.succ !== undefined && data.trials !== undefined) {
    const s = entryOf(data.succ, k);
    const n = entryOf(data.trials, k);
    if (s === undefined || n === undefined) return null;
    return { label: 'observed pass rate succ/trials', value: n > 0 ? s / n : null };
  }
  return null;
}

/**
 * The estimates of task `taskId` in run `runId`'s selector checkpoints (table `selector_states`,
 * one row per saved step). A state indexes tasks by position in the run's task list and keeps only
 * a digest of that list, so the position is found by checking `orders()` (candidate id orders: the
 * task table as stored, then sorted) against the digest; a state no order matches gets a note.
 */
export async function selectorEstimates(
  conn: Connection,
  runId: string,
  taskId: string,
  orders: () => Promise<string[][]>,
): Promise<SelectorEstimates | null> {
  if (!(await conn.tableNames()).includes('selector_states')) return null;
  const rows = await (await conn.openTable('selector_states'))
    .query()
    .where(`run_id = ${sqlString(runId)}`)
    .select(['step', 'selector', 'state'])
    .toArrow();
  if (rows.numRows === 0) return null;
  const saved = rows
    .toArray()
    .map((r) => r.toJSON() as { step: number; selector: string; state: string })
    .sort((a, b) => a.step - b.step);
  const out: SelectorEstimates = { selector: saved[0]!.selector, estimate: null, points: [], note: null };
  const positions = new Map<string, number>();
  let candidates: string[][] | undefined;
  for (const row of saved) {
    let state: z.output<typeof SavedState>;
    try {
      state = SavedState.parse(JSON.parse(row.state));
    } catch {
      out.note = `the saved state at step ${row.step} is not a selector state`;
      continue;
    }
    if (!positions.has(state.digest)) {
      candidates ??= await orders();
      const order = candidates.find((ids) => ids.length === state.n && digestIds(ids) === state.digest);
      positions.set(state.digest, order ? order.indexOf(taskId) : -2);
    }
    const k = positions.get(state.digest)!;
    if (k === -2) {
      out.note = `the task list of the state at step ${row.step} (${state.n} tasks) matches no order of this table's ids`;
      continue;
    }
    if (k === -1) continue;
    const e = estimateOf(state.data, k);
    if (!e) {
      out.note = `selector '${row.selector}' saves no per-task estimate the Studio can read`;
      continue;
    }
    out.estimate = e.label;
    out.points.push({ step: Number(row.step), value: e.value });
  }
  return out;
}
