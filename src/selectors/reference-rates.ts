// Reference pass-rate columns (a weak and a strong model's pass rate per task), as BOTS and the
// shared-ability selector read them.
import { DataError } from '../core/errors.ts';
import type { SelectorTaskView } from './types.ts';

/**
 * Reference pass rates are fractions: a value outside [0, 1] (a percentage, say) would put every
 * interpolated p̃ off the scale, so it fails the view, naming the task and the column. NaN (and
 * a missing column) means "no reference".
 */
export function checkRates(view: SelectorTaskView, column: string, selector: string): void {
  const col = view.features[column];
  if (!col) return;
  for (let i = 0; i < col.length; i++) {
    const v = col[i]!;
    if (Number.isNaN(v) || (v >= 0 && v <= 1)) continue;
    throw new DataError({
      message: `${selector}: task '${view.ids[i]}' has ${column} = ${v}, outside [0, 1] (reference pass rates are fractions: a percentage divided by 100; leave the feature out where it is unknown)`,
    });
  }
}
