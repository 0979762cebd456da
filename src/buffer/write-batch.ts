import type { Experience, ExperienceInput } from '../core/experience.ts';
import { checkExperience } from './experience-check.ts';
import type { StoredExperience } from './experience-table.ts';
import type { RowFacts, Sampler } from './samplers/sampler.ts';

/**
 * One write call's rows, checked and numbered: each new experience gets the next seq and its
 * sampler priority at zero uses; ids the buffer (or an earlier row of the call) already has are
 * set aside as duplicates, so re-writing a step after a crash adds nothing.
 */
export function prepareWrite(
  exps: readonly ExperienceInput[],
  ctx: { table: string; firstSeq: number; has: (id: string) => boolean; sampler: Sampler },
): { fresh: StoredExperience[]; duplicates: string[] } {
  const duplicates: string[] = [];
  const fresh: StoredExperience[] = [];
  const seen = new Set<string>();
  exps.forEach((raw, i) => {
    const exp = checkExperience(raw, i, `buffer '${ctx.table}' write`);
    if (ctx.has(exp.id) || seen.has(exp.id)) {
      duplicates.push(exp.id);
      return;
    }
    seen.add(exp.id);
    const seq = ctx.firstSeq + fresh.length;
    const priority = ctx.sampler.priority(factsOf(exp, seq), 0);
    fresh.push({
      exp: { ...exp, useCount: 0, priority },
      seq,
      useCount: 0,
      priority,
      lastUsedStep: -1,
      lastUsedAt: 0,
      consumed: false,
    });
  });
  return { fresh, duplicates };
}

function factsOf(e: Experience, seq: number): RowFacts {
  return {
    id: e.id,
    seq,
    modelVersion: e.modelVersion,
    advantage: e.advantage,
    reward: e.reward,
    taskId: e.taskId,
    taskset: e.taskset,
    groupId: e.groupId,
    exploreStep: e.exploreStep,
  };
}
