import { z } from 'zod';
import type { Task } from '../../core/task.ts';
import { defineOperator, filterRows } from '../operator.ts';

/** Data-Juicer's column for the suffix of the file a row was read from. */
export const DJ_SUFFIX_KEY = '__dj__suffix__';

const Params = z.strictObject({
  /** Kept suffixes, e.g. ['.py', '.md', 'Makefile']; an empty list keeps every row. */
  suffixes: z.array(z.string()).default([]),
  /** The meta key holding a row's suffix. */
  key: z.string().min(1).default(DJ_SUFFIX_KEY),
  /** The suffix of a row without that key (Data-Juicer gives every row its input file's suffix). */
  missing: z.string().optional(),
});

export const suffixFilterOp = defineOperator<Task, typeof Params>({
  name: 'suffix_filter',
  kind: 'filter',
  rowWise: true,
  description: 'Keep rows whose file suffix (meta.__dj__suffix__, or `missing`) is one of `suffixes`.',
  params: Params,
  create(p) {
    const kept = new Set(p.suffixes);
    return {
      name: 'suffix_filter',
      kind: 'filter',
      process(batch) {
        if (kept.size === 0) return { rows: [...batch], dropped: [] };
        return filterRows(batch, (task) => {
          const v = task.meta[p.key];
          const suffix = typeof v === 'string' ? v : v === undefined ? p.missing : undefined;
          if (suffix === undefined)
            return `no suffix: meta.${p.key} is ${v === undefined ? 'missing' : 'not text'}`;
          return kept.has(suffix) ? null : `suffix '${suffix}' is not one of the ${kept.size} kept`;
        });
      },
    };
  },
});
