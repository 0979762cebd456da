import type { Experience, ExperienceInput } from '../../core/experience.ts';
import type { WriteResult } from '../experience-results.ts';
import type { Sampler } from '../samplers/sampler.ts';
import type { EncodedWrite } from './encoded-write.ts';
import { checkExperience } from './experience-check.ts';
import { rowFactsAt, type WriteFacts } from './write-facts.ts';

/**
 * One `write` call waiting in a commit group, its rows already checked and encoded as Arrow. Both
 * run when the call is made, not when its group commits: with several calls in flight they overlap
 * the commit before (LanceDB writes on its own threads), the commit only numbers the rows and
 * concatenates the calls' batches, and a call with a bad row fails at once, alone.
 */
export interface CheckedWrite {
  /** What the index keeps of the call's rows (the checked row objects are not kept: write-facts.ts). */
  facts: WriteFacts;
  /** The rows encoded (seq and priority are filled in at commit; ExperienceStorage.encodeWrite). */
  encoded: EncodedWrite;
  /** Settles the call's promise: its result once its commit landed, or why it failed. */
  done: (result: WriteResult | Error) => void;
}

/**
 * Check every row of a call (throws the first row's DataError, naming the row, id and field). The
 * per-token arrays are left in the layout given (response or all tokens, lengths checked): the
 * write's encoder aligns them as it copies (`encodeWrite`), so nothing else may read them as aligned.
 */
export function checkRows(exps: readonly ExperienceInput[], table: string): Experience[] {
  return exps.map((raw, i) => checkExperience(raw, i, `buffer '${table}' write`, false));
}

/** One call of a group commit as numbered: which of its rows are new, their seqs and priorities. */
export interface NumberedCall {
  /** Indexes (into the call's rows) of the rows new to the buffer, in order; null: every row. */
  fresh: number[] | null;
  /** How many rows are new; they take the seqs `firstSeq`, `firstSeq + 1`, … in order. */
  count: number;
  firstSeq: number;
  /** Each new row's sampler priority at zero uses, or the sampler's one fixed priority for all. */
  priorities: Float64Array | number;
  /** Ids set aside: the buffer holds them already, or an earlier row of the group wrote them. */
  duplicates: string[];
}

/**
 * Number the calls of one group commit in call order: each new experience gets the next seq and its
 * sampler priority at zero uses; ids the buffer already holds, or that an earlier row of the group
 * wrote, are set aside as duplicates (so re-writing a step after a crash adds nothing). No object
 * per row: a sampler with a fixed priority is not asked at all.
 */
export function numberGroup(
  calls: readonly CheckedWrite[],
  ctx: { firstSeq: number; has: (id: string) => boolean; sampler: Sampler; grouped?: Set<string> },
): NumberedCall[] {
  // The ids of the group's new rows (filled for the caller when it passes a set).
  const grouped = ctx.grouped ?? new Set<string>();
  const fixed = ctx.sampler.fixedPriority;
  let seq = ctx.firstSeq;
  return calls.map((call) => {
    const ids = call.facts.ids;
    const firstSeq = seq;
    const priorities = fixed === undefined ? new Float64Array(ids.length) : null;
    let fresh: number[] | null = null;
    const duplicates: string[] = [];
    for (let k = 0; k < ids.length; k++) {
      const id = ids[k]!;
      // One set operation for "new to the group?" (add, then see whether the set grew).
      const size = grouped.size;
      if (grouped.add(id).size === size || ctx.has(id)) {
        if (grouped.size !== size) grouped.delete(id); // the buffer holds it: not one of the group's rows
        if (fresh === null) fresh = Array.from({ length: k }, (_, j) => j);
        duplicates.push(id);
        continue;
      }
      fresh?.push(k);
      if (priorities !== null)
        priorities[seq - firstSeq] = ctx.sampler.priority(rowFactsAt(call.facts, k, seq), 0);
      seq++;
    }
    const count = seq - firstSeq;
    return {
      fresh,
      count,
      firstSeq,
      priorities: priorities === null ? (fixed as number) : priorities.subarray(0, count),
      duplicates,
    };
  });
}
