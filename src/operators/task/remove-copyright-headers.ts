import { z } from 'zod';
import type { Task } from '../../core/task.ts';
import { defineOperator } from '../operator.ts';
import { mapTextBatch, TextFieldSchema } from './text-fields.ts';

const MARK = /copyright|©|\(c\)|版权|著作権|저작권/i;
/** A leading block comment: C-style, or Python/shell docstring-free `#` runs. */
const BLOCK = /^\s*\/\*[\s\S]*?\*\/[ \t]*(?:\r?\n)*/;
const LINE_COMMENT = /^[ \t]*(?:\/\/|#|--|;)/;

/**
 * Remove the comment at the top of a source file when it is a copyright notice: a leading
 * `/* … *\/` block, or the leading run of `//`, `#`, `--` or `;` comment lines, that mentions
 * copyright (in English, `©`, `(c)`, 版权, 著作権 or 저작권). A shebang line is kept. Anything
 * else is left alone.
 */
export function removeCopyrightHeader(text: string): string {
  let shebang = '';
  let body = text;
  if (body.startsWith('#!')) {
    const nl = body.indexOf('\n');
    if (nl < 0) return text;
    shebang = body.slice(0, nl + 1);
    body = body.slice(nl + 1);
  }
  const block = BLOCK.exec(body);
  if (block) return MARK.test(block[0]) ? shebang + body.slice(block[0].length) : text;
  const lines = body.split('\n');
  let n = 0;
  while (n < lines.length && LINE_COMMENT.test(lines[n]!)) n++;
  if (n === 0 || !MARK.test(lines.slice(0, n).join('\n'))) return text;
  while (n < lines.length && lines[n]!.trim() === '') n++;
  return shebang + lines.slice(n).join('\n');
}

/** A C-style block comment (the first one in the text, wherever it is). */
const ANY_BLOCK = /\/\*[^*]*\*+(?:[^/*][^*]*\*+)*\//;
/** A line Data-Juicer's rule counts as part of a leading comment header: `//`, `#`, `--`, or empty. */
const DJ_HEADER_LINE = /^(?:\/\/|#|--|$)/;

/**
 * Data-Juicer's clean_copyright_mapper rule: the first `/* … *\/` block anywhere in the text is cut
 * out when it contains "copyright" (and nothing else changes; a block without the word stops
 * here, text unchanged). Without any block, every leading line that starts with `//`, `#` or `--`,
 * or is empty, is removed, copyright or not.
 */
export function removeCopyrightDataJuicer(text: string): string {
  const block = ANY_BLOCK.exec(text);
  if (block)
    return /copyright/i.test(block[0])
      ? text.slice(0, block.index) + text.slice(block.index + block[0].length)
      : text;
  const lines = text.split('\n');
  let skip = 0;
  while (skip < lines.length && DJ_HEADER_LINE.test(lines[skip]!)) skip++;
  return skip === 0 ? text : lines.slice(skip).join('\n');
}

const Params = z.strictObject({
  field: TextFieldSchema.default('prompt'),
  /**
   * `notice` (default): only a leading comment that mentions copyright goes. `data_juicer`:
   * Data-Juicer's rule (removeCopyrightDataJuicer), which also drops any leading `#`/`//`/`--`
   * lines, Markdown headings included.
   */
  rule: z.enum(['notice', 'data_juicer']).default('notice'),
});

export const removeCopyrightHeadersOp = defineOperator<Task, typeof Params>({
  name: 'remove_copyright_headers',
  kind: 'map',
  rowWise: true,
  textOnly: true,
  description:
    "Remove a leading comment block (/* */, //, #) that is a copyright notice (rule: data_juicer, Data-Juicer's rule).",
  params: Params,
  create(p) {
    return {
      name: 'remove_copyright_headers',
      kind: 'map',
      process(batch) {
        return mapTextBatch(
          batch,
          p.field,
          p.rule === 'notice' ? removeCopyrightHeader : removeCopyrightDataJuicer,
        );
      },
    };
  },
});
