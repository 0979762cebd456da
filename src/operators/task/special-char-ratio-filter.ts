import { z } from 'zod';
import { defineCharShareFilter } from './char-share-filter.ts';
import { djSpecialRatio } from './dj-words.ts';
import { TextFieldSchema } from './text-fields.ts';
import { type CharClassCounts, charClassCounts } from './text-stats.ts';

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

export const specialCharRatioFilterOp = defineCharShareFilter({
  name: 'special_char_ratio_filter',
  description: 'Drop tasks whose share of non-alphanumeric, non-space characters exceeds maxRatio.',
  params: Params,
  label: 'special-char ratio',
  share: specialShare,
  first: 'max',
  needsSpace: true,
  // Data-Juicer's character set is read from the text: no ASCII-profile shortcut, no column-wise form.
  textShare: (p) => (p.charset === 'data-juicer' ? djSpecialRatio : null),
});
