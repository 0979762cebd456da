import type { Experience, ExperienceInput } from '../core/experience.ts';
import type { EncodedWrite } from './encoded-write.ts';
import { checkExperience } from './experience-check.ts';
import type { WriteResult } from './experience-results.ts';
import type { StoredExperience } from './experience-table.ts';
import type { Sampler } from './samplers/sampler.ts';

/**
 * One `write` call waiting in a commit group, its rows already checked and encoded as Arrow. Both
 * run when the call is made, not when its group commits: with several calls in flight they overlap
 * the commit before (LanceDB writes on its own threads), the commit only numbers the rows and
 * concatenates the calls' batches, and a call with a bad row fails at once, alone.
 */
export interface CheckedWrite {
  /** As checked: per-token arrays possibly still in the all-tokens layout (`checkRows`). */
  rows: Experience[];
  /** `rows` encoded (seq and priority are filled in at commit; ExperienceStorage.encodeWrite). */
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

/**
 * Number the calls of one group commit in call order: each new experience gets the next seq and its
 * sampler priority at zero uses; ids the buffer already holds, or that an earlier row of the group
 * wrote, are set aside as duplicates (so re-writing a step after a crash adds nothing).
 */
export function numberGroup(
  calls: readonly CheckedWrite[],
  ctx: { firstSeq: number; has: (id: string) => boolean; sampler: Sampler },
): Array<{ fresh: StoredExperience[]; duplicates: string[] }> {
  const grouped = new Set<string>();
  let seq = ctx.firstSeq;
  return calls.map((call) => {
    const fresh: StoredExperience[] = [];
    const duplicates: string[] = [];
    for (const exp of call.rows) {
      if (grouped.has(exp.id) || ctx.has(exp.id)) {
        duplicates.push(exp.id);
        continue;
      }
      grouped.add(exp.id);
      const priority = ctx.sampler.priority(
        {
          id: exp.id,
          seq,
          modelVersion: exp.modelVersion,
          advantage: exp.advantage,
          reward: exp.reward,
          taskId: exp.taskId,
          taskset: exp.taskset,
          groupId: exp.groupId,
          exploreStep: exp.exploreStep,
        },
        0,
      );
      // The row's own useCount/priority fields are not stored (the bookkeeping below is): no copy.
      fresh.push({
        exp,
        seq: seq++,
        useCount: 0,
        priority,
        lastUsedStep: -1,
        lastUsedAt: 0,
        consumed: false,
      });
    }
    return { fresh, duplicates };
  });
}
