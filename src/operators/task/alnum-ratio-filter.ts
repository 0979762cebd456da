import { z } from 'zod';
import type { Task } from '../../core/task.ts';
import { countsFilter } from '../columnar/text-forms.ts';
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

const Params = z
  .strictObject({
    field: TextFieldSchema.default('prompt'),
    minRatio: z.number().min(0).max(1).default(0.25),
    /** Rows above this share are dropped too (none: no upper bound). */
    maxRatio: z.number().min(0).max(1).optional(),
  })
  .refine((p) => p.maxRatio === undefined || p.minRatio <= p.maxRatio, {
    message: 'minRatio must not exceed maxRatio',
    path: ['minRatio'],
  });

export const alnumRatioFilterOp = defineOperator<Task, typeof Params>({
  name: 'alnum_ratio_filter',
  kind: 'filter',
  description: 'Drop tasks whose share of letters and digits is below minRatio (or above maxRatio).',
  params: Params,
  create(p) {
    return {
      name: 'alnum_ratio_filter',
      kind: 'filter',
      profilePass: filterPass(
        p.field,
        (profile) => alnumVerdict(alnumShare(profileCounts(profile)), p) === null,
      ),
      process(batch) {
        return filterRows(batch, (task) =>
          alnumVerdict(alnumShare(charClassCountsOf(task, readText(task, p.field))), p),
        );
      },
    };
  },
  columnar: (p) =>
    countsFilter(p.field, ['chars', 'alnum'], ([total, alnum]) =>
      alnumVerdict(alnumShare({ total: total!, alnum: alnum!, space: 0, special: 0 }), p),
    ),
});

/** Why a share of letters and digits drops the task (null: it stays). */
function alnumVerdict(r: number, p: { minRatio: number; maxRatio?: number | undefined }): string | null {
  if (r < p.minRatio) return `alnum ratio ${fmtRatio(r)} < minRatio ${p.minRatio}`;
  if (p.maxRatio !== undefined && r > p.maxRatio)
    return `alnum ratio ${fmtRatio(r)} > maxRatio ${p.maxRatio}`;
  return null;
}
