import { z } from 'zod';
import type { Task } from '../../core/task.ts';
import { defineOperator } from '../operator.ts';
import { mapTextBatch, TextFieldSchema } from './text-fields.ts';

/**
 * Rows of `cols` cells separated by one space, tab or `|`, at least two of them in a row, each
 * starting right after a line break: the text a PDF table leaves behind.
 */
function tableOf(cols: number): RegExp {
  return new RegExp(`(?<=\\n)((\\S+?)([ |\\t](\\S+?)){${cols - 1}}\\n+){2,}`, 'gu');
}

/** Table-like runs of lines removed, for every column count from minCol to maxCol in turn. */
export function removeTableText(text: string, minCol: number, maxCol: number): string {
  let out = text;
  for (let cols = minCol; cols <= maxCol; cols++) out = out.replace(tableOf(cols), '');
  return out;
}

const Params = z
  .strictObject({
    field: TextFieldSchema.default('prompt'),
    minCol: z.number().int().min(2).max(20).default(2),
    maxCol: z.number().int().min(2).max(20).default(20),
  })
  .refine((p) => p.minCol <= p.maxCol, { message: 'minCol must not exceed maxCol', path: ['minCol'] });

export const removeTableTextOp = defineOperator<Task, typeof Params>({
  name: 'remove_table_text',
  kind: 'map',
  rowWise: true,
  textOnly: true,
  description:
    'Remove runs of two or more lines that look like table rows (minCol–maxCol cells separated by a space, tab or |).',
  params: Params,
  create(p) {
    return {
      name: 'remove_table_text',
      kind: 'map',
      process(batch) {
        return mapTextBatch(batch, p.field, (t) => removeTableText(t, p.minCol, p.maxCol));
      },
    };
  },
});
