import { z } from 'zod';
import type { Experience } from '../../core/experience.ts';
import type { Drop } from '../operator.ts';
import { defineExperienceOperator } from './define.ts';

/**
 * Within each group, drops rollouts whose response repeats an earlier rollout's (batch order),
 * so identical samples do not count several times in the group baseline and the loss.
 */
export const duplicateResponseFilter = defineExperienceOperator({
  name: 'duplicate_response_filter',
  kind: 'group',
  description: 'drop experiences whose response repeats an earlier one in the same group',
  params: z
    .object({
      normalizeWhitespace: z.boolean().default(true),
      caseInsensitive: z.boolean().default(false),
    })
    .strict(),
  create: (p) => {
    const key = (s: string): string => {
      let k = p.normalizeWhitespace ? s.trim().replace(/\s+/g, ' ') : s;
      if (p.caseInsensitive) k = k.toLowerCase();
      return k;
    };
    return {
      name: 'duplicate_response_filter',
      kind: 'group',
      process: (batch) => {
        const seen = new Map<string, Set<string>>();
        const groupsWithDup = new Set<string>();
        const rows: Experience[] = [];
        const dropped: Drop<Experience>[] = [];
        for (const e of batch) {
          let set = seen.get(e.groupId);
          if (!set) {
            set = new Set();
            seen.set(e.groupId, set);
          }
          const k = key(e.response);
          if (set.has(k)) {
            dropped.push({ row: e, reason: `duplicate response in group ${e.groupId}` });
            groupsWithDup.add(e.groupId);
          } else {
            set.add(k);
            rows.push(e);
          }
        }
        return {
          rows,
          dropped,
          metrics: { duplicates: dropped.length, groups_with_duplicates: groupsWithDup.size },
        };
      },
    };
  },
});
