import { z } from 'zod';
import type { Task } from '../../core/task.ts';
import { defineOperator, filterRows } from '../operator.ts';
import { readText, TextFieldSchema } from './text-fields.ts';
import { countChars } from './text-stats.ts';

/** Average and maximum line length in characters; lines split on `\n` (blank lines count). */
export function lineLengths(text: string): { average: number; maximum: number } {
  if (text.length === 0) return { average: 0, maximum: 0 };
  const lines = text.split('\n');
  let total = 0;
  let maximum = 0;
  for (const l of lines) {
    const n = countChars(l);
    total += n;
    if (n > maximum) maximum = n;
  }
  return { average: total / lines.length, maximum };
}

const Limit = z.number().nonnegative().optional();

const Params = z.strictObject({
  field: TextFieldSchema.default('prompt'),
  minAverage: Limit,
  maxAverage: Limit,
  minMaximum: Limit,
  maxMaximum: Limit,
});

const fmt = (x: number) => (Number.isInteger(x) ? String(x) : x.toFixed(2));

export const lineLengthFilterOp = defineOperator<Task, typeof Params>({
  name: 'line_length_filter',
  kind: 'filter',
  rowWise: true,
  textOnly: true,
  description: 'Keep tasks whose average and/or maximum line length (characters) is within the given limits.',
  params: Params,
  create(p) {
    return {
      name: 'line_length_filter',
      kind: 'filter',
      process(batch) {
        return filterRows(batch, (task) => {
          const { average, maximum } = lineLengths(readText(task, p.field));
          if (p.minAverage !== undefined && average < p.minAverage)
            return `average line length ${fmt(average)} < minAverage ${p.minAverage}`;
          if (p.maxAverage !== undefined && average > p.maxAverage)
            return `average line length ${fmt(average)} > maxAverage ${p.maxAverage}`;
          if (p.minMaximum !== undefined && maximum < p.minMaximum)
            return `maximum line length ${maximum} < minMaximum ${p.minMaximum}`;
          if (p.maxMaximum !== undefined && maximum > p.maxMaximum)
            return `maximum line length ${maximum} > maxMaximum ${p.maxMaximum}`;
          return null;
        });
      },
    };
  },
});
