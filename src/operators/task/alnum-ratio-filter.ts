import { defineCharShareFilter } from './char-share-filter.ts';
import { type CharClassCounts, charClassCounts } from './text-stats.ts';

/** Share of characters that are letters, digits or combining marks: alnum / total; 0 for empty text. */
export function alnumRatio(text: string): number {
  return alnumShare(charClassCounts(text));
}

const alnumShare = (c: CharClassCounts) => (c.total === 0 ? 0 : c.alnum / c.total);

export const alnumRatioFilterOp = defineCharShareFilter({
  name: 'alnum_ratio_filter',
  description: 'Drop tasks whose share of letters and digits is below minRatio.',
  label: 'alnum ratio',
  share: alnumShare,
  bound: 'min',
});
