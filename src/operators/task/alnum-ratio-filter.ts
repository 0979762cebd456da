import { z } from 'zod';
import type { Task } from '../../core/task.ts';
import { defineOperator, filterRows } from '../operator.ts';
import { filterPass, readText, TextFieldSchema } from './text-fields.ts';
import {
  type CharClassCounts,
  charClassCounts,
  charClassCountsOf,
  fmtRatio,
  profileCounts,
} from './text-stats.ts';

/** Share of characters that are letters, digits or combining marks: alnum / total; 0 for empty text. */
export function alnumRatio(text: string): number {
  return alnumShare(charClassCounts(text));
}

const alnumShare = (c: CharClassCounts) => (c.total === 0 ? 0 : c.alnum / c.total);

const Params = z.strictObject({
  field: TextFieldSchema.default('prompt'),
  minRatio: z.number().min(0).max(1).default(0.25),
});

export const alnumRatioFilterOp = defineOperator<Task, typeof Params>({
  name: 'alnum_ratio_filter',
  kind: 'filter',
  rowWise: true,
  textOnly: true,
  description: 'Drop tasks whose share of letters and digits is below minRatio.',
  params: Params,
  create(p) {
    return {
      name: 'alnum_ratio_filter',
      kind: 'filter',
      profilePass: filterPass(p.field, (profile) => alnumShare(profileCounts(profile)) >= p.minRatio),
      process(batch) {
        return filterRows(batch, (task) => {
          const r = alnumShare(charClassCountsOf(task, readText(task, p.field)));
          return r < p.minRatio ? `alnum ratio ${fmtRatio(r)} < minRatio ${p.minRatio}` : null;
        });
      },
    };
  },
});
