import { z } from 'zod';
import type { Task } from '../../core/task.ts';
import type { Drop } from '../operator.ts';
import { defineOperator } from '../operator.ts';
import { dedupKeyHash } from './dedup-key.ts';
import { ExactDedupIndex } from './exact-dedup-index.ts';
import { ExactDedupKeyer, preparedExactKey } from './exact-dedup-prepared.ts';
import { readText, TextFieldSchema } from './text-fields.ts';
import { textProfile } from './text-profile.ts';

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
    // One slot per kept row: its text's 53-bit key hash with a 32-bit check beside it (texts are
    // never held) and its id, both in typed arrays, not on the GC's heap (see exact-dedup-index.ts).
    const seen = new ExactDedupIndex(p.checkIds);
    const keyer = new ExactDedupKeyer(p);
    // The prompt's ASCII profile carries this key's hash when the key is the default one (for ASCII
    // text every unicode form is the identity): the scan a text step made anyway, or made here once.
    const profiled = keyer.profiled;
    // Sized once for the rows the run expects, as soon as it knows (no rebuilds as it fills).
    let sized = false;
    return {
      name: 'exact_dedup',
      kind: 'dedup',
      process(batch, ctx) {
        if (!sized) {
          const expected = ctx.expectedRows?.();
          if (expected !== undefined) {
            seen.reserve(expected);
            sized = true;
          }
        }
        const rows: Task[] = [];
        const dropped: Drop<Task>[] = [];
        let byId = 0;
        let byText = 0;
        for (const task of batch) {
          if (p.checkIds && seen.findId(task.id) >= 0) {
            byId++;
            dropped.push({ row: task, reason: `duplicate id ${task.id}` });
            continue;
          }
          // The hash a worker computed for this very text, or one computed here.
          const text = readText(task, p.field);
          let key: number;
          let check: number;
          const prepared = preparedExactKey(task, keyer.key, text);
          const profile = prepared === undefined && profiled ? textProfile(task, text) : null;
          if (prepared !== undefined) {
            key = prepared.key;
            check = prepared.check;
          } else if (profile !== null && profile.dedupKey >= 0) {
            key = profile.dedupKey;
            check = profile.dedupCheck;
          } else {
            const h = dedupKeyHash(text, p);
            key = h.key;
            check = h.check;
          }
          const first = seen.findText(key, check);
          if (first >= 0) {
            byText++;
            dropped.push({ row: task, reason: `duplicate of ${seen.idAt(first)}` });
            continue;
          }
          seen.add(task.id, key, check);
          rows.push(task);
        }
        return { rows, dropped, metrics: { duplicate_ids: byId, duplicate_texts: byText } };
      },
    };
  },
});
