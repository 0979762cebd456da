import { z } from 'zod';
import type { Task } from '../../core/task.ts';
import type { Drop } from '../operator.ts';
import { defineOperator } from '../operator.ts';
import { extractFinalAnswer } from './answer-extraction.ts';
import { deleteTaskValue, formatTaskPath, getTaskValue, parseTaskPath } from './task-paths.ts';

const Params = z
  .strictObject({
    /** gsm8k (`#### n`), boxed (`\boxed{…}`), last_number, or auto (those three in that order). */
    mode: z.enum(['auto', 'gsm8k', 'boxed', 'last_number']).default('auto'),
    /** Where the worked solution is read from: `answer`, `prompt` or `meta.<key>`. */
    from: z.string().default('answer'),
    /** Meta key that receives the full solution text (kept if already set); null to not keep it. */
    solutionKey: z.string().min(1).nullable().default('solution'),
    /** No answer found: drop the task, clear its answer (keeping the solution in meta), or keep it unchanged. */
    onFail: z.enum(['drop', 'clear', 'keep']).default('drop'),
  })
  .superRefine((p, ctx) => {
    const path = parseTaskPath(p.from, 'meta');
    if (typeof path === 'string') ctx.addIssue({ code: 'custom', path: ['from'], message: path });
  });

export const extractAnswerOp = defineOperator<Task, typeof Params>({
  name: 'extract_answer',
  kind: 'map',
  rowWise: true,
  description:
    'Extract the final answer from a worked solution (GSM8K ####, \\boxed{}, last number) into `answer`, keeping the solution in meta.',
  params: Params,
  create(p) {
    const from = parseTaskPath(p.from, 'meta');
    if (typeof from === 'string') throw new Error(`extract_answer: params.from: ${from}`);
    const fromName = formatTaskPath(from);
    return {
      name: 'extract_answer',
      kind: 'map',
      process(batch) {
        const rows: Task[] = [];
        const dropped: Drop<Task>[] = [];
        const metrics: Record<string, number> = {
          extracted_gsm8k: 0,
          extracted_boxed: 0,
          extracted_last_number: 0,
          extract_failed: 0,
        };
        for (const task of batch) {
          const raw = getTaskValue(task, from);
          const source = typeof raw === 'string' ? raw : typeof raw === 'number' ? String(raw) : undefined;
          const found = source === undefined ? null : extractFinalAnswer(source, p.mode);
          const withSolution = (t: Task): Task =>
            p.solutionKey === null || source === undefined || p.solutionKey in t.meta
              ? t
              : { ...t, meta: { ...t.meta, [p.solutionKey]: source } };
          if (found !== null) {
            metrics[`extracted_${found.mode}`]!++;
            rows.push({ ...withSolution(task), answer: found.value });
            continue;
          }
          metrics['extract_failed']!++;
          if (p.onFail === 'drop') {
            const reason =
              source === undefined
                ? `no ${fromName} to extract an answer from`
                : `no answer found in ${fromName} (mode ${p.mode})`;
            dropped.push({ row: task, reason });
          } else if (p.onFail === 'clear') rows.push(deleteTaskValue(withSolution(task), { root: 'answer' }));
          else rows.push(task);
        }
        return { rows, dropped, metrics };
      },
    };
  },
});
