import { z } from 'zod';
import type { Task } from '../../core/task.ts';
import { defineOperator, filterRows } from '../operator.ts';
import { charRepetitionByHash } from './char-grams.ts';
import { readText, TextFieldSchema } from './text-fields.ts';
import { fmtRatio } from './text-stats.ts';

/**
 * Character n-gram repetition (the Data-Juicer definition): count every character n-gram; of the
 * D distinct n-grams take the k = min(⌊√D⌋, number of n-grams seen more than once) most frequent;
 * ratio = (sum of their counts) / (total n-grams). 0 when the text is shorter than n.
 */
export function charRepetitionRatio(text: string, n: number): number {
  // Hashed windows, no string per n-gram (char-grams.ts); the string path when it cannot decide.
  const fast = charRepetitionByHash(text, n);
  return fast >= 0 ? fast : charRepetitionRatioRef(text, n);
}

/** The reference: one string per n-gram, counted in a Map (exported so tests can compare). */
export function charRepetitionRatioRef(text: string, n: number): number {
  const units = /[\ud800-\udfff]/.test(text) ? Array.from(text) : null;
  const len = units ? units.length : text.length;
  const total = len - n + 1;
  if (total <= 0) return 0;
  const counts = new Map<string, number>();
  for (let i = 0; i < total; i++) {
    const gram = units ? units.slice(i, i + n).join('') : text.slice(i, i + n);
    counts.set(gram, (counts.get(gram) ?? 0) + 1);
  }
  const freqs = [...counts.values()].sort((a, b) => b - a);
  let repeated = 0;
  for (const f of freqs) if (f > 1) repeated++;
  const k = Math.min(Math.floor(Math.sqrt(freqs.length)), repeated);
  let top = 0;
  for (let i = 0; i < k; i++) top += freqs[i]!;
  return top / total;
}

const Params = z.strictObject({
  field: TextFieldSchema.default('prompt'),
  /** n-gram length in characters. */
  n: z.number().int().min(1).default(10),
  /** Rows whose ratio is below this are dropped too (0: no lower bound). */
  minRatio: z.number().min(0).max(1).default(0),
  maxRatio: z.number().min(0).max(1).default(0.5),
});

export const charRepetitionFilterOp = defineOperator<Task, typeof Params>({
  name: 'char_repetition_filter',
  kind: 'filter',
  rowWise: true,
  textOnly: true,
  description:
    'Drop tasks whose most frequent repeated character n-grams cover more than maxRatio of all n-grams.',
  params: Params,
  create(p) {
    return {
      name: 'char_repetition_filter',
      kind: 'filter',
      process(batch) {
        return filterRows(batch, (task) => {
          const r = charRepetitionRatio(readText(task, p.field), p.n);
          if (r > p.maxRatio)
            return `char ${p.n}-gram repetition ratio ${fmtRatio(r)} > maxRatio ${p.maxRatio}`;
          if (r < p.minRatio)
            return `char ${p.n}-gram repetition ratio ${fmtRatio(r)} < minRatio ${p.minRatio}`;
          return null;
        });
      },
    };
  },
});
