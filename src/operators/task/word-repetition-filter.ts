import { z } from 'zod';
import type { Task } from '../../core/task.ts';
import { defineOperator, filterRows } from '../operator.ts';
import { readText, TextFieldSchema } from './text-fields.ts';
import { fmtRatio } from './text-stats.ts';
import { wordTokens } from './text-units.ts';

/**
 * Word n-gram repetition: words are text-units.ts's `wordTokens` (lower-cased whitespace tokens
 * with punctuation trimmed from their ends; segmenter words inside CJK/Thai runs); ratio = (sum of counts of n-grams seen more than once) / (total n-grams).
 * 0 when there are fewer than n words.
 */
export function wordRepetitionRatio(text: string, n: number): number {
  const words = wordTokens(text);
  const total = words.length - n + 1;
  if (total <= 0) return 0;
  const counts = new Map<string, number>();
  for (let i = 0; i < total; i++) {
    const gram = n === 1 ? words[i]! : words.slice(i, i + n).join(' ');
    counts.set(gram, (counts.get(gram) ?? 0) + 1);
  }
  let repeated = 0;
  for (const f of counts.values()) if (f > 1) repeated += f;
  return repeated / total;
}

const Params = z.strictObject({
  field: TextFieldSchema.default('prompt'),
  /** n-gram length in words. */
  n: z.number().int().min(1).default(10),
  maxRatio: z.number().min(0).max(1).default(0.5),
});

export const wordRepetitionFilterOp = defineOperator<Task, typeof Params>({
  name: 'word_repetition_filter',
  kind: 'filter',
  rowWise: true,
  textOnly: true,
  description: 'Drop tasks whose repeated word n-grams cover more than maxRatio of all word n-grams.',
  params: Params,
  create(p) {
    return {
      name: 'word_repetition_filter',
      kind: 'filter',
      process(batch) {
        return filterRows(batch, (task) => {
          const r = wordRepetitionRatio(readText(task, p.field), p.n);
          return r > p.maxRatio
            ? `word ${p.n}-gram repetition ratio ${fmtRatio(r)} > maxRatio ${p.maxRatio}`
            : null;
        });
      },
    };
  },
});
