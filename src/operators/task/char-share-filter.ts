import type { z } from 'zod';
import type { Task } from '../../core/task.ts';
import { countsFilter } from '../columnar/text-forms.ts';
import { defineOperator, filterRows, type OperatorDefinition } from '../operator.ts';
import { filterPass, readText, type TextField } from './text-fields.ts';
import { type CharClassCounts, charClassCountsOf, fmtRatio, profileCounts } from './text-stats.ts';

/** The params every character-share filter has (each filter's schema sets its own defaults). */
export interface CharShareParams {
  field: TextField;
  minRatio: number;
  maxRatio?: number | undefined;
}

/**
 * The character-share filters (alnum_ratio_filter, special_char_ratio_filter): a share of a text's
 * characters, from its character-class counts, kept within [minRatio, maxRatio]. One family: the
 * counting, the ASCII-profile shortcut, the column-wise form and the drop reason are written once
 * here, and one verdict per filter serves rows, profile and columns alike.
 */
export function defineCharShareFilter<S extends z.ZodType<CharShareParams>>(spec: {
  name: string;
  description: string;
  params: S;
  /** What the reason calls the share (`alnum ratio`). */
  label: string;
  share: (counts: CharClassCounts) => number;
  /** The bound tested first, so its reason wins when both fail (min above max). */
  first: 'min' | 'max';
  /** Whether the share needs the whitespace count too (the column-wise form counts it only then). */
  needsSpace: boolean;
  /**
   * A share read from the text by other rules (Data-Juicer's charset) for these params, or null for
   * the class counts. Such a share has no ASCII-profile shortcut and no column-wise form.
   */
  textShare?: (p: z.output<S>) => ((text: string) => number) | null;
}): OperatorDefinition<Task, z.output<S>> {
  const verdict = (r: number, p: CharShareParams): string | null => {
    const below = r < p.minRatio ? `${spec.label} ${fmtRatio(r)} < minRatio ${p.minRatio}` : null;
    const above =
      p.maxRatio !== undefined && r > p.maxRatio
        ? `${spec.label} ${fmtRatio(r)} > maxRatio ${p.maxRatio}`
        : null;
    return spec.first === 'min' ? (below ?? above) : (above ?? below);
  };
  const counted = (p: z.output<S>) => (spec.textShare?.(p) ?? null) === null;
  return defineOperator<Task, S>({
    name: spec.name,
    kind: 'filter',
    rowWise: true,
    textOnly: true,
    description: spec.description,
    params: spec.params,
    create(p) {
      const textShare = spec.textShare?.(p) ?? null;
      // Made once per step, not per batch: see filterRows (operators/operator.ts).
      const judge = (task: Task) => {
        const text = readText(task, p.field);
        return verdict(textShare ? textShare(text) : spec.share(charClassCountsOf(task, text)), p);
      };
      return {
        name: spec.name,
        kind: 'filter',
        ...(textShare === null
          ? {
              profilePass: filterPass(
                p.field,
                (profile) => verdict(spec.share(profileCounts(profile)), p) === null,
              ),
            }
          : {}),
        process(batch) {
          return filterRows(batch, judge);
        },
      };
    },
    // Counts [code points, alphanumerics(, spaces)], as charClassCounts makes them.
    columnar: (p) =>
      !counted(p)
        ? null
        : countsFilter(p.field, spec.needsSpace ? ['chars', 'alnum', 'space'] : ['chars', 'alnum'], (v) => {
            const [total, alnum, space = 0] = v as [number, number, number?];
            const special = spec.needsSpace ? total - alnum - space : 0;
            return verdict(spec.share({ total, alnum, space, special }), p);
          }),
  });
}
