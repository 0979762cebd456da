import { z } from 'zod';
import type { Task } from '../../core/task.ts';
import type { Drop } from '../operator.ts';
import { defineOperator } from '../operator.ts';
import { SimHashIndex, simhash } from './simhash.ts';
import { readText, TextFieldSchema } from './text-fields.ts';

const Params = z
  .strictObject({
    field: TextFieldSchema.default('prompt'),
    /** `word` (CJK-aware words), `char`, or `space` (split on spaces only, as Data-Juicer's `space`) shingles. */
    tokenizer: z.enum(['word', 'char', 'space']).default('word'),
    /** Shingle length in tokens. */
    window: z.number().int().min(1).default(6),
    lowercase: z.boolean().default(true),
    /** A regular expression (JavaScript, Unicode mode); its matches are removed (after lower-casing) before tokens are taken. */
    ignorePattern: z
      .string()
      .refine((s) => {
        try {
          new RegExp(s, 'gu');
          return true;
        } catch {
          return false;
        }
      }, 'not a valid regular expression (JavaScript syntax, u flag)')
      .optional(),
    /** A text of fewer tokens than `window`: one shingle (`whole`), or none (`none`: hash 0, Data-Juicer's rule). */
    shortText: z.enum(['whole', 'none']).default('whole'),
    /** A task within this many differing bits of an earlier kept one is a near-duplicate. */
    hammingDistance: z.number().int().min(0).max(32).default(4),
    /** Index pieces; must exceed hammingDistance so that every near-duplicate is found. */
    blocks: z.number().int().min(2).max(32).default(6),
  })
  .refine((p) => p.blocks > p.hammingDistance, {
    message: 'blocks must exceed hammingDistance (otherwise near-duplicates can be missed)',
    path: ['blocks'],
  });

export const simhashDedupOp = defineOperator<Task, typeof Params>({
  name: 'simhash_dedup',
  kind: 'dedup',
  description:
    'Drop tasks whose 64-bit SimHash is within hammingDistance bits of an earlier kept task (first kept).',
  params: Params,
  create(p) {
    const index = new SimHashIndex(p.blocks);
    const ignore = p.ignorePattern === undefined ? null : new RegExp(p.ignorePattern, 'gu');
    // Data-Juicer removes the pattern from the lower-cased text, so case-folding comes first here too.
    const textOf = (task: Task) => {
      const t = readText(task, p.field);
      return ignore === null ? t : (p.lowercase ? t.toLowerCase() : t).replace(ignore, '');
    };
    const ids: string[] = [];
    return {
      name: 'simhash_dedup',
      kind: 'dedup',
      process(batch) {
        const rows: Task[] = [];
        const dropped: Drop<Task>[] = [];
        for (const task of batch) {
          const h = simhash(textOf(task), p);
          const near = index.nearest(h, p.hammingDistance);
          if (near !== null) {
            dropped.push({
              row: task,
              reason: `near-duplicate of ${ids[near.doc]} (simhash distance ${near.distance} <= hammingDistance ${p.hammingDistance})`,
            });
            continue;
          }
          index.insert(h);
          ids.push(task.id);
          rows.push(task);
        }
        return { rows, dropped, metrics: { near_duplicates: dropped.length } };
      },
    };
  },
});
