import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { Task } from '../../core/task.ts';
import type { Drop } from '../operator.ts';
import { defineOperator } from '../operator.ts';
import { dedupKey } from './dedup-key.ts';
import { readText, TextFieldSchema } from './text-fields.ts';

const Params = z.strictObject({
  /** What is compared: the prompt text, the answer, or both. */
  field: TextFieldSchema.default('prompt'),
  unicode: z.enum(['NFKC', 'NFC', 'none']).default('NFKC'),
  lowercase: z.boolean().default(true),
  stripPunctuation: z.boolean().default(true),
  whitespace: z.enum(['collapse', 'remove', 'keep']).default('collapse'),
  /** Also drop tasks whose id was already seen. */
  checkIds: z.boolean().default(true),
});

/**
 * Keys are SHA-1 digests of the normal form: node's native hash measured faster here than a
 * 64-bit hash in JS (~2 µs per 300-char text), and 160 bits make collisions a non-issue, so the
 * seen map never has to hold the texts themselves.
 */
function hashKey(key: string): string {
  return createHash('sha1').update(key).digest('base64');
}

export const exactDedupOp = defineOperator<Task, typeof Params>({
  name: 'exact_dedup',
  kind: 'dedup',
  description: 'Drop tasks whose normalised text (or id) was already seen; the first occurrence is kept.',
  params: Params,
  create(p) {
    const seenText = new Map<string, string>();
    const seenIds = new Set<string>();
    return {
      name: 'exact_dedup',
      kind: 'dedup',
      process(batch) {
        const rows: Task[] = [];
        const dropped: Drop<Task>[] = [];
        let byId = 0;
        let byText = 0;
        for (const task of batch) {
          if (p.checkIds && seenIds.has(task.id)) {
            byId++;
            dropped.push({ row: task, reason: `duplicate id ${task.id}` });
            continue;
          }
          const key = hashKey(dedupKey(readText(task, p.field), p));
          const first = seenText.get(key);
          if (first !== undefined) {
            byText++;
            dropped.push({ row: task, reason: `duplicate of ${first}` });
            continue;
          }
          seenText.set(key, task.id);
          seenIds.add(task.id);
          rows.push(task);
        }
        return { rows, dropped, metrics: { duplicate_ids: byId, duplicate_texts: byText } };
      },
    };
  },
});
