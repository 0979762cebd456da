import { defineCharShareFilter } from './char-share-filter.ts';
import { type CharClassCounts, charClassCounts } from './text-stats.ts';

/**
 * Share of characters that are neither letters/digits/marks nor whitespace:
 * special / total, over code points; 0 for empty text.
 */
export function specialCharRatio(text: string): number {
  return specialShare(charClassCounts(text));
}

const specialShare = (c: CharClassCounts) => (c.total === 0 ? 0 : c.special / c.total);

export const specialCharRatioFilterOp = defineCharShareFilter({
  name: 'special_char_ratio_filter',
  description: 'Drop tasks whose share of non-alphanumeric, non-space characters exceeds maxRatio.',
  label: 'special-char ratio',
  share: specialShare,
  bound: 'max',
});
