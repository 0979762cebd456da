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

/**
 * Share of characters that are neither letters/digits/marks nor whitespace:
 * special / total, over code points; 0 for empty text.
 */
export function specialCharRatio(text: string): number {
  return specialShare(charClassCounts(text));
}

const specialShare = (c: CharClassCounts) => (c.total === 0 ? 0 : c.special / c.total);

const Params = z.strictObject({
  field: TextFieldSchema.default('prompt'),
  maxRatio: z.number().min(0).max(1).default(0.25),
});

export const specialCharRatioFilterOp = defineOperator<Task, typeof Params>({
  name: 'special_char_ratio_filter',
  kind: 'filter',
  rowWise: true,
  textOnly: true,
  description: 'Drop tasks whose share of non-alphanumeric, non-space characters exceeds maxRatio.',
  params: Params,
  create(p) {
    return {
      name: 'special_char_ratio_filter',
      kind: 'filter',
      profilePass: filterPass(p.field, (profile) => specialShare(profileCounts(profile)) <= p.maxRatio),
      process(batch) {
        return filterRows(batch, (task) => {
          const text = readText(task, p.field);
          const r = specialShare(charClassCountsOf(task, text));
          return r > p.maxRatio ? `special-char ratio ${fmtRatio(r)} > maxRatio ${p.maxRatio}` : null;
        });
      },
    };
  },
});
