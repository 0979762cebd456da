import { z } from 'zod';
import type { Task } from '../../core/task.ts';
import { defineOperator } from '../operator.ts';
import { mapTextBatch, TextFieldSchema } from './text-fields.ts';

/** A regular expression source that compiles (checked when the config is read, not mid-run). */
const PatternSchema = z.string().refine(
  (s) => {
    try {
      new RegExp(s, 'u');
      return true;
    } catch {
      return false;
    }
  },
  { message: 'not a valid regular expression (JavaScript syntax, u flag)' },
);

const Params = z
  .strictObject({
    field: TextFieldSchema.default('prompt'),
    /** Regular expressions (JavaScript syntax, Unicode mode), applied in order; every match is replaced. */
    patterns: z.array(PatternSchema).default([]),
    /** One replacement for every pattern, or one per pattern. `$1`, `$<name>` refer to groups. */
    replacement: z.union([z.string(), z.array(z.string())]).default(''),
    /** Match case-insensitively. */
    ignoreCase: z.boolean().default(false),
  })
  .refine((p) => typeof p.replacement === 'string' || p.replacement.length === p.patterns.length, {
    message: 'a replacement list needs one entry per pattern',
    path: ['replacement'],
  });

export const replaceContentOp = defineOperator<Task, typeof Params>({
  name: 'replace_content',
  kind: 'map',
  rowWise: true,
  textOnly: true,
  description:
    'Replace every match of each regular expression with its replacement (patterns → replacement).',
  params: Params,
  create(p) {
    const rules = p.patterns.map((src, i) => ({
      re: new RegExp(src, p.ignoreCase ? 'giu' : 'gu'),
      to: typeof p.replacement === 'string' ? p.replacement : p.replacement[i]!,
    }));
    return {
      name: 'replace_content',
      kind: 'map',
      process(batch) {
        return mapTextBatch(batch, p.field, (t) => {
          let out = t;
          for (const r of rules) out = out.replace(r.re, r.to);
          return out;
        });
      },
    };
  },
});
