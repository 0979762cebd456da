import { z } from 'zod';
import type { Task } from '../../core/task.ts';
import { defineOperator } from '../operator.ts';
import { mapTextBatch, TextFieldSchema } from './text-fields.ts';

/**
 * An inline comment as Data-Juicer's remove_comments_mapper matches it: the character before an
 * unescaped `%` (it goes too, even a line break), the `%`, and the rest of the line (at least one character).
 */
const INLINE = /[^\\]%.+$/gm;
/** A whole line that starts with `%`, with its line break. */
const LINE = /^%.*\n?/gm;

/** LaTeX comments removed: inline ones (`text % note`), then lines that are comments. */
export function removeLatexComments(text: string, inline: boolean, multiline: boolean): string {
  let out = text;
  if (inline) out = out.replace(INLINE, '');
  if (multiline) out = out.replace(LINE, '');
  return out;
}

const Params = z.strictObject({
  field: TextFieldSchema.default('prompt'),
  /** Remove `% …` at the end of a line (with the one character before the `%`). */
  inline: z.boolean().default(true),
  /** Remove lines that start with `%`. */
  multiline: z.boolean().default(true),
});

export const removeLatexCommentsOp = defineOperator<Task, typeof Params>({
  name: 'remove_latex_comments',
  kind: 'map',
  rowWise: true,
  textOnly: true,
  description:
    'Remove LaTeX comments: `% …` to the end of a line (inline) and lines starting with % (multiline).',
  params: Params,
  create(p) {
    return {
      name: 'remove_latex_comments',
      kind: 'map',
      process(batch) {
        return mapTextBatch(batch, p.field, (t) => removeLatexComments(t, p.inline, p.multiline));
      },
    };
  },
});
