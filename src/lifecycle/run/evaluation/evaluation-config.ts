import { z } from 'zod';

/** A set name becomes part of metric keys (`eval/<name>/pass@4`), so it is kept plain. */
const SET_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

/**
 * The `evaluation` block of an RFT config: several task sets, each sampled n times per task (n ≥ k,
 * default k) and scored as mean@k and pass@k every `every` explorer steps (and at the start and the end).
 * `heldout` stays as it was (one greedy sample per task → `accuracy`); this block adds to it.
 * Built from the task-source schema so the two share one definition.
 */
export function evaluationConfigSchema<S extends z.ZodType>(source: S) {
  const set = z.strictObject({
    name: z
      .string()
      .regex(SET_NAME, 'letters, digits, _ . and - only (it names metric keys)')
      .describe('Names the set in metrics (eval/<name>/mean@k, eval/<name>/pass@k) and the report.'),
    source: source.describe('Where the set’s tasks come from (a dataset file or a task table).'),
    size: z.number().int().positive().optional().describe('Use only the first N tasks of the source.'),
    k: z.number().int().positive().max(1024).default(1).describe('pass@k’s k: samples a task may try.'),
    n: z
      .number()
      .int()
      .positive()
      .max(1024)
      .optional()
      .describe(
        'Samples drawn per task (default k); with n > k, pass@k is estimated from all n (Chen et al.’s unbiased estimator).',
      ),
    temperature: z
      .number()
      .min(0)
      .optional()
      .describe('Sampling temperature of the k samples (default: explorer.temperature).'),
    correctAt: z
      .number()
      .default(1)
      .describe('A sample counts as correct for pass@k when its reward is ≥ this.'),
  });
  return z
    .strictObject({
      every: z
        .number()
        .int()
        .positive()
        .default(5)
        .describe('Evaluate every N explorer steps (and at the start and end).'),
      sets: z.array(set).min(1).describe('The evaluation sets, each with its own k.'),
    })
    .superRefine((e, ctx) => {
      const seen = new Set<string>();
      e.sets.forEach((s, i) => {
        if (s.n !== undefined && s.k > s.n)
          ctx.addIssue({
            code: 'custom',
            path: ['sets', i, 'k'],
            message: `k (${s.k}) is above n (${s.n}): pass@k needs at least k samples per task (raise n or lower k)`,
          });
        if (seen.has(s.name))
          ctx.addIssue({
            code: 'custom',
            path: ['sets', i, 'name'],
            message: `duplicate evaluation set name '${s.name}'`,
          });
        seen.add(s.name);
      });
    });
}
