import { z } from 'zod';
import type { Task } from '../../core/task.ts';
import { defineOperator, filterRows } from '../operator.ts';

const NUMERIC = /^[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?$|^[-+]?\d*\.\d+$|^[-+]?\d+\/\d+$/;

/** A plain number: integer, decimal (`.5` too), thousands commas, or a fraction `3/4`, with an optional sign. */
export function isNumericAnswer(text: string): boolean {
  return NUMERIC.test(text.trim());
}

const Params = z.strictObject({
  /** Also require the answer to be a plain number (see isNumericAnswer). */
  numeric: z.boolean().default(false),
});

export const requireAnswerOp = defineOperator<Task, typeof Params>({
  name: 'require_answer',
  kind: 'filter',
  rowWise: true,
  description:
    'Drop tasks without a verifiable reference answer (missing, empty, or not numeric when numeric: true).',
  params: Params,
  create(p) {
    return {
      name: 'require_answer',
      kind: 'filter',
      process(batch) {
        return filterRows(batch, (task) => {
          if (task.answer === undefined) return 'missing answer';
          if (task.answer.trim().length === 0) return 'empty answer';
          if (p.numeric && !isNumericAnswer(task.answer))
            return `answer is not numeric: ${JSON.stringify(task.answer.length > 40 ? `${task.answer.slice(0, 40)}…` : task.answer)}`;
          return null;
        });
      },
    };
  },
});
