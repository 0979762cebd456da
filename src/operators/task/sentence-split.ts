import { z } from 'zod';
import type { Task } from '../../core/task.ts';
import { defineOperator } from '../operator.ts';
import { mapTextBatch, TextFieldSchema } from './text-fields.ts';
import { sentences } from './text-units.ts';

const Params = z.strictObject({
  field: TextFieldSchema.default('prompt'),
  /** Put between sentences. */
  separator: z.string().default('\n'),
});

export const sentenceSplitOp = defineOperator<Task, typeof Params>({
  name: 'sentence_split',
  kind: 'map',
  rowWise: true,
  description:
    'Rewrite the text as one sentence per line (sentences as text-units.ts finds them, CJK-aware).',
  params: Params,
  create(p) {
    return {
      name: 'sentence_split',
      kind: 'map',
      process(batch) {
        return mapTextBatch(batch, p.field, (t) => sentences(t).join(p.separator));
      },
    };
  },
});
