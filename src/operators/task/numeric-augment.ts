import { z } from 'zod';
import { taskContentId } from '../../core/ids.ts';
import { hashSeed, Rng } from '../../core/rng.ts';
import type { Task } from '../../core/task.ts';
import { defineOperator } from '../operator.ts';
import { generateVariant } from './numeric-variants.ts';
import { analyzeProblem } from './problem-analysis.ts';

const Params = z.strictObject({
  /** Variants to try to emit per task. */
  variants: z.number().int().min(1).max(100).default(1),
  /** New values lie within value × (1 ± range). */
  range: z.number().gt(0).lt(1).default(0.5),
  /** Keep the number of digits (16 → 10…99). */
  sameDigits: z.boolean().default(true),
  /** Tries per variant before it is skipped (counted in metrics, the parent is kept either way). */
  attempts: z.number().int().min(1).max(1000).default(20),
  /** Meta key holding the worked solution with <<expr=result>> annotations (set by extract_answer). */
  solutionKey: z.string().min(1).default('solution'),
  /** Do not augment tasks that are themselves augmented (meta.augmented === true). */
  skipAugmented: z.boolean().default(true),
  /** Seed for the perturbations; by default the operator's own stream from the run seed. */
  seed: z.number().int().optional(),
});

export const numericAugmentOp = defineOperator<Task, typeof Params>({
  name: 'numeric_augment',
  kind: 'augment',
  description:
    'Emit numeric variants of GSM8K-style problems: perturb question numbers, re-run the calculator annotations, rewrite question, solution and answer.',
  params: Params,
  create(p) {
    return {
      name: 'numeric_augment',
      kind: 'augment',
      process(batch, ctx) {
        const rows: Task[] = [];
        const metrics: Record<string, number> = {
          variants_emitted: 0,
          variants_skipped: 0,
          tasks_not_augmentable: 0,
        };
        const count = (k: string) => {
          metrics[k] = (metrics[k] ?? 0) + 1;
        };
        for (const task of batch) {
          rows.push(task);
          if (p.skipAugmented && task.meta['augmented'] === true) continue;
          const solution = task.meta[p.solutionKey];
          // Chat tasks are left alone: their turns would keep the old numbers.
          const why =
            task.prompt === undefined || task.messages !== undefined
              ? 'chat'
              : typeof solution !== 'string'
                ? 'no_solution'
                : null;
          if (why !== null || task.prompt === undefined || typeof solution !== 'string') {
            count('tasks_not_augmentable');
            count(`not_augmentable_${why ?? 'chat'}`);
            continue;
          }
          const analysis = analyzeProblem(task.prompt, solution);
          if ('reason' in analysis) {
            count('tasks_not_augmentable');
            count(`not_augmentable_${analysis.reason}`);
            continue;
          }
          // One stream per task, from the task id: a task's variants do not depend on batch order.
          const rng =
            p.seed === undefined ? ctx.rng.fork(`augment:${task.id}`) : new Rng(hashSeed(p.seed, task.id));
          const seen = new Set([task.prompt]);
          for (let v = 0; v < p.variants; v++) {
            const variant = generateVariant(analysis, rng, p, seen);
            if (variant === null) {
              metrics['variants_skipped']!++;
              continue;
            }
            seen.add(variant.question);
            metrics['variants_emitted']!++;
            const child: Task = {
              ...task,
              id: taskContentId({ prompt: variant.question, answer: variant.answer }),
              prompt: variant.question,
              answer: variant.answer,
              meta: {
                ...task.meta,
                augmented: true,
                parentId: task.id,
                [p.solutionKey]: variant.solution,
              },
            };
            rows.push(child);
          }
        }
        return { rows, dropped: [], metrics };
      },
    };
  },
});
