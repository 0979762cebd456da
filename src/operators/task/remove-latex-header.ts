import { z } from 'zod';
import type { Task } from '../../core/task.ts';
import { defineOperator } from '../operator.ts';
import { mapTextBatch, TextFieldSchema } from './text-fields.ts';

/**
 * A LaTeX sectioning command with its title: `\section{…}`, `\subsection*[short]{…}`… (the
 * commands RedPajama's arXiv cleaning cuts the preamble at).
 */
const HEADER =
  /\\(?:chapter|part|section|subsection|subsubsection|paragraph|subparagraph)\b\*?(?:\[[\s\S]*?\])?\{[\s\S]*?\}/;

/**
 * Everything before the first sectioning command removed (the preamble, title block and
 * abstract of a LaTeX source). A text with no such command becomes '' when `dropNoHeader` (a
 * length filter then drops it), else stays as it is.
 */
export function removeLatexHeader(text: string, dropNoHeader: boolean): string {
  const m = HEADER.exec(text);
  if (m === null) return dropNoHeader ? '' : text;
  return m.index === 0 ? text : text.slice(m.index);
}

const Params = z.strictObject({
  field: TextFieldSchema.default('prompt'),
  /** A text without any sectioning command becomes empty (Data-Juicer's drop_no_head). */
  dropNoHeader: z.boolean().default(true),
});

export const removeLatexHeaderOp = defineOperator<Task, typeof Params>({
  name: 'remove_latex_header',
  kind: 'map',
  rowWise: true,
  textOnly: true,
  description:
    'Cut a LaTeX source before its first \\chapter/\\part/\\section/…/\\subparagraph; empty a text without one (dropNoHeader).',
  params: Params,
  create(p) {
    return {
      name: 'remove_latex_header',
      kind: 'map',
      process(batch) {
        return mapTextBatch(batch, p.field, (t) => removeLatexHeader(t, p.dropNoHeader));
      },
    };
  },
});
