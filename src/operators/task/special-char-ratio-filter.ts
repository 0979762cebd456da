import { z } from 'zod';
import type { Task } from '../../core/task.ts';
import { countsFilter } from '../columnar/text-forms.ts';
import { defineOperator, filterRows } from '../operator.ts';
import { djSpecialRatio } from './dj-words.ts';
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
  /** Rows whose ratio is below this are dropped too (0: no lower bound). */
  minRatio: z.number().min(0).max(1).default(0),
  maxRatio: z.number().min(0).max(1).default(0.25),
  /**
   * Which characters are special: 'winnow' (neither letter, digit, mark nor whitespace) or
   * 'data-juicer' (its set: ASCII punctuation, digits and whitespace, emoji and a list of odd symbols).
   */
  charset: z.enum(['winnow', 'data-juicer']).default('winnow'),
});

export const specialCharRatioFilterOp = defineOperator<Task, typeof Params>({
  name: 'special_char_ratio_filter',
  kind: 'filter',
  description: 'Drop tasks whose share of non-alphanumeric, non-space characters exceeds maxRatio.',
  params: Params,
  create(p) {
    const verdict = (r: number) => specialVerdict(r, p);
    const winnow = p.charset === 'winnow';
    return {
      name: 'special_char_ratio_filter',
      kind: 'filter',
      ...(winnow
        ? {
            profilePass: filterPass(
              p.field,
              (profile) => verdict(specialShare(profileCounts(profile))) === null,
            ),
          }
        : {}),
      process(batch) {
        return filterRows(batch, (task) => {
          const text = readText(task, p.field);
          return verdict(winnow ? specialShare(charClassCountsOf(task, text)) : djSpecialRatio(text));
        });
      },
    };
  },
  // Counts [code points, alphanumerics, spaces], as charClassCounts makes them; Data-Juicer's
  // character set has no column-wise form (it runs row-wise).
  columnar: (p) =>
    p.charset !== 'winnow'
      ? null
      : countsFilter(p.field, ['chars', 'alnum', 'space'], ([total, alnum, space]) =>
          specialVerdict(
            specialShare({ total: total!, alnum: alnum!, space: space!, special: total! - alnum! - space! }),
            p,
          ),
        ),
});

/** Why a share of special characters drops the task (null: it stays). */
function specialVerdict(r: number, p: { minRatio: number; maxRatio: number }): string | null {
  if (r > p.maxRatio) return `special-char ratio ${fmtRatio(r)} > maxRatio ${p.maxRatio}`;
  if (r < p.minRatio) return `special-char ratio ${fmtRatio(r)} < minRatio ${p.minRatio}`;
  return null;
}
