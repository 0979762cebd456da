import { z } from 'zod';
import type { Task } from '../../core/task.ts';
import { taskText } from '../../core/task.ts';
import type { Drop } from '../operator.ts';
import { defineOperator } from '../operator.ts';
import { findNumberTokens } from './number-tokens.ts';
import { formatTaskPath, getTaskValue, parseTaskPath, toNumber } from './task-paths.ts';
import { countWords } from './text-stats.ts';

/** The heuristic features, in the order they are documented. */
export const HEURISTIC_FEATURES = ['prompt_words', 'prompt_numbers', 'num_steps', 'num_ops'] as const;
export type HeuristicFeature = (typeof HEURISTIC_FEATURES)[number];

const ANNOTATION = /<<([^<>]*)>>/g;

/**
 * Raw heuristic features of a task:
 * - prompt_words: whitespace-separated words of the prompt (or joined chat);
 * - prompt_numbers: numbers written with digits in the prompt;
 * - num_steps: calculator annotations `<<…>>` in the solution; without annotations, its non-empty
 *   lines other than the final `####` line; 0 without a solution;
 * - num_ops: + − × ÷ operators inside those annotations.
 */
export function heuristicFeatures(task: Task, solutionKey: string): Record<HeuristicFeature, number> {
  const prompt = taskText(task);
  const metaSolution = task.meta[solutionKey];
  const solution =
    typeof metaSolution === 'string'
      ? metaSolution
      : task.answer !== undefined && /<<|####|\n/.test(task.answer)
        ? task.answer
        : '';
  let steps = 0;
  let ops = 0;
  for (const m of solution.matchAll(ANNOTATION)) {
    steps++;
    // The expression is what precedes the last '='; a leading '-' is a sign, not an operation.
    const body = m[1]!;
    const expr = body.slice(0, Math.max(0, body.lastIndexOf('='))).trim();
    for (let i = 1; i < expr.length; i++)
      if ('+-*/'.includes(expr[i]!) && !'+-*/('.includes(expr[i - 1]!)) ops++;
  }
  if (steps === 0 && solution.length > 0)
    steps = solution.split('\n').filter((l) => l.trim().length > 0 && !l.trim().startsWith('####')).length;
  return {
    prompt_words: countWords(prompt),
    prompt_numbers: findNumberTokens(prompt).length,
    num_steps: steps,
    num_ops: ops,
  };
}

const weight = (w: number) => z.number().min(0).default(w);
const scale = (s: number) => z.number().positive().default(s);

const ColumnSchema = z.strictObject({
  /** `features.<name>`, `meta.<key>`, or a bare feature name. */
  path: z.string().min(1),
  /** Use 1 − value (after scaling): difficulty from a pass rate. */
  invert: z.boolean().default(false),
  /** Values are scaled linearly from [min, max] to [0, 1], then clipped. */
  min: z.number().default(0),
  max: z.number().default(1),
  weight: z.number().min(0).default(1),
});

const Params = z
  .strictObject({
    mode: z.enum(['heuristic', 'columns']).default('heuristic'),
    /** Feature that receives the difficulty in [0, 1]. */
    target: z.string().min(1).default('difficulty'),
    /** columns mode: the weighted mean of these scaled columns. */
    columns: z.array(ColumnSchema).default([]),
    /** columns mode, a column missing or not a number: drop the task, or keep it without a difficulty. */
    onMissing: z.enum(['drop', 'keep']).default('drop'),
    /** heuristic mode: weight of each feature in the mean. */
    weights: z
      .strictObject({
        prompt_words: weight(0.2),
        prompt_numbers: weight(0.2),
        num_steps: weight(0.4),
        num_ops: weight(0.2),
      })
      .prefault({}),
    /** heuristic mode: the value at which a feature counts as fully hard (its share is min(1, x / scale)). */
    scales: z
      .strictObject({
        prompt_words: scale(100),
        prompt_numbers: scale(8),
        num_steps: scale(8),
        num_ops: scale(12),
      })
      .prefault({}),
    /** Meta key of the worked solution (steps are counted there). */
    solutionKey: z.string().min(1).default('solution'),
    /** heuristic mode: also write the raw features (features.prompt_words, …). */
    keepFeatures: z.boolean().default(true),
  })
  .superRefine((p, ctx) => {
    if (p.mode === 'columns' && p.columns.length === 0)
      ctx.addIssue({ code: 'custom', path: ['columns'], message: 'columns mode needs at least one column' });
    p.columns.forEach((c, i) => {
      const path = parseTaskPath(c.path, 'features');
      if (typeof path === 'string')
        ctx.addIssue({ code: 'custom', path: ['columns', i, 'path'], message: path });
      if (c.max === c.min)
        ctx.addIssue({ code: 'custom', path: ['columns', i, 'max'], message: 'max must differ from min' });
    });
    if (p.mode === 'heuristic' && HEURISTIC_FEATURES.every((f) => p.weights[f] === 0))
      ctx.addIssue({ code: 'custom', path: ['weights'], message: 'at least one weight must be > 0' });
  });

const clip01 = (x: number) => Math.max(0, Math.min(1, x));

export const difficultyOp = defineOperator<Task, typeof Params>({
  name: 'difficulty',
  kind: 'map',
  description:
    'Write features.difficulty in [0, 1]: from given columns (e.g. 1 − pass_rate) or from prompt/solution heuristics with weights.',
  params: Params,
  create(p) {
    const columns = p.columns.map((c) => {
      const path = parseTaskPath(c.path, 'features');
      if (typeof path === 'string') throw new Error(`difficulty: params.columns: ${path}`);
      return { ...c, parsed: path, name: formatTaskPath(path) };
    });
    const totalWeight = HEURISTIC_FEATURES.reduce((s, f) => s + p.weights[f], 0);
    return {
      name: 'difficulty',
      kind: 'map',
      process(batch) {
        const rows: Task[] = [];
        const dropped: Drop<Task>[] = [];
        let missing = 0;
        for (const task of batch) {
          if (p.mode === 'heuristic') {
            const f = heuristicFeatures(task, p.solutionKey);
            let sum = 0;
            for (const name of HEURISTIC_FEATURES)
              sum += p.weights[name] * Math.min(1, f[name] / p.scales[name]);
            const features = {
              ...task.features,
              ...(p.keepFeatures ? f : {}),
              [p.target]: sum / totalWeight,
            };
            rows.push({ ...task, features });
            continue;
          }
          let sum = 0;
          let weights = 0;
          const absent: string[] = [];
          for (const c of columns) {
            const x = toNumber(getTaskValue(task, c.parsed));
            if (x === undefined) {
              absent.push(c.name);
              continue;
            }
            const scaled = clip01((x - c.min) / (c.max - c.min));
            sum += c.weight * (c.invert ? 1 - scaled : scaled);
            weights += c.weight;
          }
          if (absent.length > 0) {
            missing++;
            if (p.onMissing === 'drop')
              dropped.push({ row: task, reason: `no numeric ${absent.join(', ')} for difficulty` });
            else rows.push(task);
            continue;
          }
          rows.push({ ...task, features: { ...task.features, [p.target]: weights > 0 ? sum / weights : 0 } });
        }
        return { rows, dropped, metrics: { missing_columns: missing } };
      },
    };
  },
});
