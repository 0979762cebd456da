import { z } from 'zod';
import type { Task } from '../../core/task.ts';
import { defineOperator } from '../operator.ts';
import { mapTextBatch, TextFieldSchema } from './text-fields.ts';

/** Where the back matter of a LaTeX source starts: appendix, references, bibliography. */
const BACK_MATTER =
  /\\appendix|\\begin\{references\}|\\begin\{REFERENCES\}|\\begin\{thebibliography\}|\\bibliography\{[\s\S]*\}/;

/** The text cut at the first `\appendix`, `\begin{references}`, `\begin{thebibliography}` or `\bibliography{…}`. */
export function removeBibliography(text: string): string {
  const m = BACK_MATTER.exec(text);
  return m === null ? text : text.slice(0, m.index);
}

const Params = z.strictObject({ field: TextFieldSchema.default('prompt') });

export const removeBibliographyOp = defineOperator<Task, typeof Params>({
  name: 'remove_bibliography',
  kind: 'map',
  rowWise: true,
  textOnly: true,
  description: 'Cut a LaTeX source at its appendix or bibliography (everything from there to the end goes).',
  params: Params,
  create(p) {
    return {
      name: 'remove_bibliography',
      kind: 'map',
      process(batch) {
        return mapTextBatch(batch, p.field, removeBibliography);
      },
    };
  },
});
