import { z } from 'zod';
import { defineCharShareFilter } from './char-share-filter.ts';
import { TextFieldSchema } from './text-fields.ts';
import { type CharClassCounts, charClassCounts } from './text-stats.ts';

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

export const alnumRatioFilterOp = defineCharShareFilter({
  name: 'alnum_ratio_filter',
  description: 'Drop tasks whose share of letters and digits is below minRatio (or above maxRatio).',
  params: Params,
  label: 'alnum ratio',
  share: alnumShare,
  first: 'min',
  needsSpace: false,
});
