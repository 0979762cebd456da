import { z } from 'zod';
import type { JsonValue, Task } from '../../core/task.ts';
import { defineOperator, filterRows } from '../operator.ts';
import { FieldPathSchema } from './field-value-filter.ts';
import { formatTaskPath, getTaskValue, parseTaskPath, type TaskPath } from './task-paths.ts';

/** A number, or text that reads as one (`' 3.5 '`, `1e3`, as Python's float reads it); else undefined. */
export function numericValue(v: JsonValue | undefined): number | undefined {
  if (typeof v === 'number') return v;
  if (typeof v !== 'string' || v.trim() === '') return undefined;
  const t = v.trim().toLowerCase().replaceAll('_', '');
  if (/^[+-]?(inf|infinity)$/.test(t)) return t.startsWith('-') ? -Infinity : Infinity;
  if (!/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/.test(t)) return undefined;
  return Number(t);
}

const Params = z
  .strictObject({
    /** Without a field every row is kept (Data-Juicer's empty field_key). */
    field: FieldPathSchema.optional(),
    min: z.number().optional(),
    max: z.number().optional(),
  })
  .refine((p) => p.min === undefined || p.max === undefined || p.min <= p.max, {
    message: 'min must not exceed max',
    path: ['min'],
  });

export const fieldRangeFilterOp = defineOperator<Task, typeof Params>({
  name: 'field_range_filter',
  kind: 'filter',
  rowWise: true,
  description:
    'Keep rows whose field is a number (or numeric text) within [min, max]; rows without a numeric value there are dropped.',
  params: Params,
  create(p) {
    const path = p.field === undefined ? null : (parseTaskPath(p.field, 'meta') as TaskPath);
    const where = path === null ? '' : formatTaskPath(path);
    return {
      name: 'field_range_filter',
      kind: 'filter',
      process(batch) {
        if (path === null) return { rows: [...batch], dropped: [] };
        return filterRows(batch, (task) => {
          const raw = getTaskValue(task, path);
          const x = numericValue(raw);
          if (x === undefined)
            return `${where} is ${raw === undefined ? 'missing' : `not a number (${JSON.stringify(raw)})`}`;
          if (p.min !== undefined && x < p.min) return `${where} ${x} < min ${p.min}`;
          if (p.max !== undefined && x > p.max) return `${where} ${x} > max ${p.max}`;
          return null;
        });
      },
    };
  },
});
