import { z } from 'zod';
import type { Task } from '../../core/task.ts';
import { defineOperator, filterRows } from '../operator.ts';
import { readText, TextFieldSchema } from './text-fields.ts';
import { countChars } from './text-stats.ts';

/**
 * Line breaks as Python's `str.splitlines()` sees them (Data-Juicer splits lines with it): \r\n,
 * \n, \r, vertical tab, form feed, the file/group/record separators, NEL, and the Unicode line
 * and paragraph separators.
 */
const LINE_BREAK = /\r\n|[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]/;

/**
 * Average and maximum line length in characters (code points), as Data-Juicer's
 * average_line_length_filter and maximum_line_length_filter measure them: lines are split like
 * Python's `splitlines()` (a trailing line break does not start another line; blank lines inside
 * count), the average is the whole text's length (line breaks included) over the number of lines,
 * the maximum is the longest line without its break.
 */
export function lineLengths(text: string): { average: number; maximum: number } {
  if (text.length === 0) return { average: 0, maximum: 0 };
  const lines = text.split(LINE_BREAK);
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  let maximum = 0;
  for (const l of lines) {
    const n = countChars(l);
    if (n > maximum) maximum = n;
  }
  return { average: countChars(text) / lines.length, maximum };
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
