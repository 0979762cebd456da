import { z } from 'zod';
import type { JsonValue, Task } from '../../core/task.ts';
import type { Drop } from '../operator.ts';
import { defineOperator } from '../operator.ts';
import type { TaskPath } from './task-paths.ts';
import {
  deleteTaskValue,
  formatTaskPath,
  getTaskValue,
  parseTaskPath,
  setTaskValue,
  toNumber,
} from './task-paths.ts';
import type { TemplatePart } from './template.ts';
import { fillTemplate, parseTemplate, renderValue } from './template.ts';

const WRITABLE_ROOTS = new Set(['prompt', 'answer', 'meta', 'features']);

/** Paths a mapping may write: prompt, answer, meta.*, features.* (bare names are meta keys). */
function checkTarget(text: string): string | null {
  const path = parseTaskPath(text, 'meta');
  if (typeof path === 'string') return path;
  if (!WRITABLE_ROOTS.has(path.root))
    return `cannot write '${text}' (writable: prompt, answer, meta.*, features.*)`;
  return null;
}

const PathMapSchema = z.record(z.string(), z.string()).default({});

const MapFieldsParams = z
  .strictObject({
    /** Template for the prompt, e.g. "{meta.question}\n{meta.choices}". */
    prompt: z.string().optional(),
    /** Template for the reference answer, e.g. "{meta.label}". */
    answer: z.string().optional(),
    /** Move values: `{from: to}`; the source is removed. Moving into features converts to a number. */
    rename: PathMapSchema,
    /** Copy values: `{from: to}`; the source stays. */
    copy: PathMapSchema,
    /** How arrays render inside templates and into prompt/answer. */
    listFormat: z.enum(['lines', 'lettered', 'numbered', 'json']).default('lines'),
    /** A missing source (or a non-numeric value bound for features): drop the row, or skip that one mapping. */
    onMissing: z.enum(['drop', 'skip']).default('drop'),
  })
  .superRefine((p, ctx) => {
    for (const key of ['prompt', 'answer'] as const) {
      const t = p[key];
      if (t === undefined) continue;
      const parsed = parseTemplate(t);
      if (typeof parsed === 'string') ctx.addIssue({ code: 'custom', path: [key], message: parsed });
    }
    for (const key of ['rename', 'copy'] as const) {
      for (const [from, to] of Object.entries(p[key])) {
        const src = parseTaskPath(from, 'meta');
        if (typeof src === 'string') ctx.addIssue({ code: 'custom', path: [key, from], message: src });
        else if (key === 'rename' && !WRITABLE_ROOTS.has(src.root))
          ctx.addIssue({
            code: 'custom',
            path: [key, from],
            message: `cannot move '${from}' away (copy it)`,
          });
        else if (key === 'rename' && src.root === 'prompt')
          ctx.addIssue({
            code: 'custom',
            path: [key, from],
            message: 'moving the prompt away would leave the task without one (copy it)',
          });
        const bad = checkTarget(to);
        if (bad) ctx.addIssue({ code: 'custom', path: [key, from], message: bad });
      }
    }
  });

interface Mapping {
  from: TaskPath;
  to: TaskPath;
  move: boolean;
}

/** Convert a value for its destination: numbers for features, text for prompt/answer, as-is for meta. */
function convert(value: JsonValue, to: TaskPath, listFormat: 'lines' | 'lettered' | 'numbered' | 'json') {
  if (to.root === 'features') return toNumber(value);
  if (to.root === 'prompt' || to.root === 'answer') return renderValue(value, listFormat);
  return value;
}

export const mapFieldsOp = defineOperator<Task, typeof MapFieldsParams>({
  name: 'map_fields',
  kind: 'map',
  rowWise: true,
  description:
    'Set the prompt/answer from templates over task fields, meta and features; move or copy meta keys (numbers into features).',
  params: MapFieldsParams,
  create(params) {
    const templates: Array<{ to: TaskPath; parts: TemplatePart[] }> = [];
    for (const key of ['prompt', 'answer'] as const) {
      const t = params[key];
      if (t === undefined) continue;
      const parts = parseTemplate(t);
      if (typeof parts === 'string') throw new Error(`map_fields: params.${key}: ${parts}`);
      templates.push({ to: { root: key }, parts });
    }
    const mappings: Mapping[] = [];
    for (const [key, move] of [
      ['copy', false],
      ['rename', true],
    ] as const) {
      for (const [from, to] of Object.entries(params[key])) {
        const src = parseTaskPath(from, 'meta');
        const dst = parseTaskPath(to, 'meta');
        if (typeof src === 'string' || typeof dst === 'string')
          throw new Error(`map_fields: params.${key}.${from}: invalid path`);
        mappings.push({ from: src, to: dst, move });
      }
    }

    return {
      name: 'map_fields',
      kind: 'map',
      process(batch) {
        const rows: Task[] = [];
        const dropped: Drop<Task>[] = [];
        let skipped = 0;
        for (const task of batch) {
          // Every source is read from the input row, so swaps ({a: b, b: a}) work.
          const writes: Array<{ to: TaskPath; value: JsonValue }> = [];
          const problems: string[] = [];
          for (const { to, parts } of templates) {
            const { text, missing } = fillTemplate(parts, task, params.listFormat);
            if (missing.length > 0)
              problems.push(`missing ${missing.join(', ')} (needed by the ${formatTaskPath(to)} template)`);
            writes.push({ to, value: text });
          }
          const removals: TaskPath[] = [];
          for (const m of mappings) {
            const raw = getTaskValue(task, m.from);
            if (raw === undefined || raw === null) {
              problems.push(
                `missing ${formatTaskPath(m.from)} (to ${m.move ? 'move' : 'copy'} into ${formatTaskPath(m.to)})`,
              );
              continue;
            }
            const value = convert(raw, m.to, params.listFormat);
            if (value === undefined) {
              problems.push(
                `${formatTaskPath(m.from)} is not a number (${JSON.stringify(raw).slice(0, 40)}), cannot put it in ${formatTaskPath(m.to)}`,
              );
              continue;
            }
            writes.push({ to: m.to, value });
            if (m.move) removals.push(m.from);
          }
          if (problems.length > 0 && params.onMissing === 'drop') {
            dropped.push({ row: task, reason: problems.join('; ') });
            continue;
          }
          if (problems.length > 0) skipped++;
          let out = task;
          for (const path of removals) out = deleteTaskValue(out, path);
          for (const w of writes) out = setTaskValue(out, w.to, w.value);
          rows.push(out);
        }
        return { rows, dropped, metrics: { rows_with_missing_fields: skipped } };
      },
    };
  },
});
