import { z } from 'zod';
import type { Task } from '../../../src/core/task.ts';
import { defineOperator } from '../../../src/operators/operator.ts';
import { mapTextBatch, TextFieldSchema } from '../../../src/operators/task/text-fields.ts';

const Params = z.strictObject({ field: TextFieldSchema.default('prompt') });

/** Trim whitespace at both ends of a task's text. */
export const trimTextOp = defineOperator<Task, typeof Params>({
  name: 'trim_text',
  kind: 'map',
  rowWise: true,
  description: 'Trim whitespace at both ends of the prompt (or answer).',
  params: Params,
  create: (p) => ({
    name: 'trim_text',
    kind: 'map',
    process: (batch) => mapTextBatch(batch, p.field, (t) => t.trim()),
  }),
});
