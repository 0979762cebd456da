import { z } from 'zod';
import type { JsonValue, Task } from '../../core/task.ts';
import { defineOperator, filterRows } from '../operator.ts';
import { formatTaskPath, getTaskValue, parseTaskPath, type TaskPath } from './task-paths.ts';

/** A task path (`meta.source`, `meta.info.lang`, `prompt`…) checked when the config is read. */
export const FieldPathSchema = z
  .string()
  .min(1)
  .refine(
    (s) => typeof parseTaskPath(s, 'meta') !== 'string',
    'not a task path (meta.<key>, prompt, answer…)',
  )
  .describe(
    'Where the value is: meta.<key>[.<key>…] (a bare key means meta.<key>), prompt, answer, id or features.<key>.',
  );

const sameValue = (a: JsonValue, b: JsonValue) => JSON.stringify(a) === JSON.stringify(b);

const Params = z.strictObject({
  /** Without a field every row is kept (Data-Juicer's empty field_key). */
  field: FieldPathSchema.optional(),
  /** Allowed values; a list value passes when every element is allowed. An empty list keeps every row. */
  values: z.array(z.json()).default([]),
});

export const fieldValueFilterOp = defineOperator<Task, typeof Params>({
  name: 'field_value_filter',
  kind: 'filter',
  rowWise: true,
  description:
    'Keep rows whose field holds one of `values` (a list field: every element one of them); rows without the field are dropped.',
  params: Params,
  create(p) {
    const path = p.field === undefined ? null : (parseTaskPath(p.field, 'meta') as TaskPath);
    const allowed = p.values as JsonValue[];
    return {
      name: 'field_value_filter',
      kind: 'filter',
      process(batch) {
        if (path === null || allowed.length === 0) return { rows: [...batch], dropped: [] };
        return filterRows(batch, (task) => {
          const v = getTaskValue(task, path);
          if (v === undefined) return `no field ${formatTaskPath(path)}`;
          const items = Array.isArray(v) ? v : [v];
          const bad = items.find((x) => !allowed.some((a) => sameValue(a, x)));
          return bad === undefined
            ? null
            : `${formatTaskPath(path)} holds ${JSON.stringify(bad)}, not an allowed value`;
        });
      },
    };
  },
});
