import { z } from 'zod';
import type { Task } from '../../core/task.ts';
import { defineOperator, filterRows, type OperatorDefinition } from '../operator.ts';
import { filterPass, readText, TextFieldSchema } from './text-fields.ts';
import { type CharClassCounts, charClassCountsOf, fmtRatio, profileCounts } from './text-stats.ts';

/**
 * The character-share filters (alnum_ratio_filter, special_char_ratio_filter): a share of a text's
 * characters, from its character-class counts, kept above `minRatio` or below `maxRatio`. One
 * family: the counting, the ASCII-profile shortcut and the drop reason are written once here.
 */
export function defineCharShareFilter(spec: {
  name: string;
  description: string;
  /** What the reason calls the share (`alnum ratio`). */
  label: string;
  share: (counts: CharClassCounts) => number;
  /** `min`: drop a task whose share is below `minRatio`; `max`: above `maxRatio`. */
  bound: 'min' | 'max';
}): OperatorDefinition<Task, unknown> {
  const key = spec.bound === 'min' ? 'minRatio' : 'maxRatio';
  const Params = z.strictObject({
    field: TextFieldSchema.default('prompt'),
    [key]: z.number().min(0).max(1).default(0.25),
  }) as unknown as z.ZodType<{ field: z.output<typeof TextFieldSchema> } & Record<typeof key, number>>;
  const keeps = (r: number, limit: number) => (spec.bound === 'min' ? r >= limit : r <= limit);
  const sign = spec.bound === 'min' ? '<' : '>';
  return defineOperator<Task, typeof Params>({
    name: spec.name,
    kind: 'filter',
    rowWise: true,
    textOnly: true,
    description: spec.description,
    params: Params,
    create(p) {
      const limit = p[key];
      return {
        name: spec.name,
        kind: 'filter',
        profilePass: filterPass(p.field, (profile) => keeps(spec.share(profileCounts(profile)), limit)),
        process(batch) {
          return filterRows(batch, (task) => {
            const r = spec.share(charClassCountsOf(task, readText(task, p.field)));
            return keeps(r, limit) ? null : `${spec.label} ${fmtRatio(r)} ${sign} ${key} ${limit}`;
          });
        },
      };
    },
  }) as OperatorDefinition<Task, unknown>;
}
