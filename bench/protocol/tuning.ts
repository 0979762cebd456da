// How a method's parameters were chosen. The protocol ranks only methods tuned by the same rule
// (the table states it); anything tuned otherwise is reported beside the ranking, labelled.
import { z } from 'zod';

export const tuningRuleSchema = z.discriminatedUnion('kind', [
  /** The parameters its paper (or, for Winnow's own methods, the library) publishes; no tuning at all. */
  z.strictObject({ kind: z.literal('published_defaults') }),
  /** A grid of `size` settings over its main parameters, chosen on `seeds` (never report seeds). */
  z.strictObject({
    kind: z.literal('equal_grid'),
    size: z.number().int().min(1),
    seeds: z.array(z.number()),
  }),
  /** Tuned some other way (e.g. by hand on seeds 1–5): reported, not ranked. */
  z.strictObject({ kind: z.literal('asymmetric'), note: z.string().min(1) }),
]);
export type TuningRule = z.infer<typeof tuningRuleSchema>;

export const PUBLISHED_DEFAULTS: TuningRule = { kind: 'published_defaults' };

export function describeTuning(rule: TuningRule): string {
  switch (rule.kind) {
    case 'published_defaults':
      return 'published defaults (no tuning)';
    case 'equal_grid':
      return `equal grid of ${rule.size} on seeds ${rule.seeds.join(',')}`;
    case 'asymmetric':
      return `tuned: ${rule.note} (not ranked)`;
  }
}

/** The key two rules must share for their methods to be ranked together. */
export function tuningKey(rule: TuningRule): string {
  return rule.kind === 'equal_grid' ? `equal_grid:${rule.size}:${rule.seeds.join(',')}` : rule.kind;
}
