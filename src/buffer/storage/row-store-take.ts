// Take sampled rows' payload from the row store (payload-rows.ts), checking each row against the
// table as a Lance take would: the row must still be in the table under its row id, and a row id
// the index predicted (not read from the table) must hold the expected `id` and `seq`. The check
// reads no payload column, so it costs ~1.5 ms for 256 scattered rows where the payload take costs
// ~15 ms. Rows the store cannot serve are left for the Lance take.
import type { Table } from '@lancedb/lancedb';
import type * as arrow from 'apache-arrow';
import type { Experience } from '../../core/experience.ts';
import type { ExperienceSlots } from '../index/experience-slots.ts';
import { PAYLOAD_FLAG, type RowIdentity } from './experience-table.ts';
import type { PayloadRows } from './payload-rows.ts';

/** What the index supplies to complete a payload row. */
export function identityOf(sl: ExperienceSlots, s: number): RowIdentity {
  return {
    id: sl.ids[s]!,
    taskId: sl.taskIds[s]!,
    taskset: sl.tasksetNames[sl.taskset[s]!]!,
    groupId: sl.groupNames[sl.group[s]!]!,
    runIndex: sl.runIndex[s]!,
    stepIndex: sl.stepIndex[s]!,
    modelVersion: sl.modelVersion[s]!,
    exploreStep: sl.exploreStep[s]!,
    promptLength: sl.promptLength[s]!,
    reward: sl.reward[s]!,
    advantage: sl.advantage[s]!,
    truncated: (sl.flags[s]! & 1) === 1,
    useCount: 0,
    priority: 0,
    createdAt: sl.createdAt[s]!,
    expert: (sl.flags[s]! & 2) === 2,
  };
}

/**
 * Fill `out` with the rows of `slots` the row store holds and the table confirms. Only rows whose
 * optional payload is at most a prompt qualify (the store keeps no messages, info, per-token
 * advantages or non-standard masks). `readRowIdsBelow`: row ids below it were read from the table.
 */
export async function takeFromRowStore(
  table: Table,
  rows: PayloadRows,
  sl: ExperienceSlots,
  slots: readonly number[],
  readRowIdsBelow: number,
  out: Map<number, Experience>,
): Promise<void> {
  const wanted = slots.filter((s) => sl.rowId[s]! >= 0 && (sl.payload[s]! & ~PAYLOAD_FLAG.prompt) === 0);
  if (wanted.length === 0) return;
  const stored = rows.read(wanted.map((s) => sl.seq[s]!));
  const byRowId = new Map<number, number>();
  const payloadOf = new Map<number, number>();
  wanted.forEach((s, k) => {
    const p = stored[k];
    if (!p || p.id !== sl.ids[s]) return;
    byRowId.set(sl.rowId[s]!, s);
    payloadOf.set(s, k);
  });
  if (byRowId.size === 0) return;
  // Row ids read from the table need only their existence checked (no column read); predicted
  // ones also their id and seq. Two takes, side by side, so the few fresh rows of a sample do not
  // make the whole sample read the identity columns.
  const sorted = [...byRowId.keys()].sort((a, b) => a - b);
  const known = sorted.filter((r) => r < readRowIdsBelow);
  const predicted = sorted.filter((r) => r >= readRowIdsBelow);
  const take = (ids: number[], cols: string[]) =>
    ids.length === 0 ? null : table.takeRowIds(ids).select(cols).withRowId().toArrow();
  const results = await Promise.all([take(known, []), take(predicted, ['id', 'seq'])]);
  for (const t of results) if (t) confirm(t);

  function confirm(t: arrow.Table): void {
    const ids = t.getChild('id');
    const seqs = t.getChild('seq');
    const rids = t.getChild('_rowid');
    for (let i = 0; i < t.numRows; i++) {
      const rowId = Number(rids?.get(i));
      const s = byRowId.get(rowId);
      if (s === undefined) continue;
      // A predicted row id that holds another row is left for the Lance take, which re-learns it.
      if (
        rowId >= readRowIdsBelow &&
        (String(ids?.get(i)) !== sl.ids[s] || Number(seqs?.get(i)) !== sl.seq[s])
      )
        continue;
      const p = stored[payloadOf.get(s)!]!;
      const identity = identityOf(sl, s);
      // Same keys, in the same order, as decodePayloads builds for these columns.
      const exp: Experience = {
        ...identity,
        response: p.response,
        tokens: p.tokens,
        logprobs: p.logprobs,
        actionMask: new Array<number>(Math.max(0, p.tokens.length - identity.promptLength)).fill(1),
        info: {},
      };
      if (sl.payload[s]! & PAYLOAD_FLAG.prompt && p.prompt !== null) exp.prompt = p.prompt;
      out.set(s, exp);
    }
  }
}

/** Seqs of the rows the index holds, but `gone` (rows being evicted): what the row store keeps. */
export function liveSeqs(sl: ExperienceSlots, gone: ReadonlySet<number>): number[] {
  const out: number[] = [];
  for (let s = 0; s < sl.size; s++) if (sl.alive[s] && !gone.has(s)) out.push(sl.seq[s]!);
  return out;
}
