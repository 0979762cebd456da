import { z } from 'zod';
import type { Task } from '../../core/task.ts';
import type { Drop } from '../operator.ts';
import { defineOperator } from '../operator.ts';
import { dedupKeyHash } from './dedup-key.ts';
import { HashKeyTable, StringKeySet } from './exact-dedup-keys.ts';
import { ExactDedupKeyer, preparedExactKey } from './exact-dedup-prepared.ts';
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

export const exactDedupOp = defineOperator<Task, typeof Params>({
  name: 'exact_dedup',
  kind: 'dedup',
  description: 'Drop tasks whose normalised text (or id) was already seen; the first occurrence is kept.',
  params: Params,
  create(p) {
    // Keyed by a 53-bit hash of the normal form, with a 32-bit check beside it: texts are never held.
    // The value is the slot of the first task's id in `seenIds`. Both live in typed arrays, not
    // on the GC's heap (see exact-dedup-keys.ts).
    const seenText = new HashKeyTable();
    const seenIds = new StringKeySet();
    const keyer = new ExactDedupKeyer(p);
    return {
      name: 'exact_dedup',
      kind: 'dedup',
      process(batch) {
        const rows: Task[] = [];
        const dropped: Drop<Task>[] = [];
        let byId = 0;
        let byText = 0;
        for (const task of batch) {
          if (p.checkIds && seenIds.find(task.id) >= 0) {
            byId++;
            dropped.push({ row: task, reason: `duplicate id ${task.id}` });
            continue;
          }
          // The hash a worker computed for this very text, or one computed here.
          const text = readText(task, p.field);
          const { key, check } = preparedExactKey(task, keyer.key, text) ?? dedupKeyHash(text, p);
          const first = seenText.get(key);
          if (first !== undefined && first.check === check) {
            byText++;
            dropped.push({ row: task, reason: `duplicate of ${seenIds.keyAt(first.value)}` });
            continue;
          }
          const added = seenIds.add(task.id);
          if (first === undefined) seenText.setIfAbsent(key, check, added >= 0 ? added : -added - 1);
          rows.push(task);
        }
        return { rows, dropped, metrics: { duplicate_ids: byId, duplicate_texts: byText } };
      },
    };
  },
});
