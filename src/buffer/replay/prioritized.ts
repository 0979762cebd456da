import { z } from 'zod';
import { defineDiscipline, ReuseParamsShape, reuseLimits } from './discipline.ts';

export const PrioritizedParamsSchema = z.strictObject({
  alpha: z.number().nonnegative().default(0.6).describe('P(i) ∝ (|advantage_i| + ε)^α; 0 = uniform.'),
  beta: z
    .number()
    .nonnegative()
    .default(0.4)
    .describe('Importance-weight exponent: w_i = (N·P(i))^−β / max_batch w.'),
  epsilon: z
    .number()
    .positive()
    .default(1e-6)
    .describe('Added to |advantage| so zero-advantage rows can still be drawn.'),
  ...ReuseParamsShape,
});
export type PrioritizedParams = z.output<typeof PrioritizedParamsSchema>;

/**
 * Prioritised experience replay on |advantage|: rows are drawn at random without replacement with
 * probability ∝ (|A| + ε)^α, and each carries an importance weight (N·P(i))^−β normalised by the
 * largest weight in the batch, so weights only scale updates down. The stored priority is |A| + ε.
 */
export const prioritizedDiscipline = defineDiscipline({
  name: 'prioritized',
  description:
    'Prioritised replay on |advantage| with exponent α and importance weights β; use limit, cooldown.',
  params: PrioritizedParamsSchema,
  create: (p) => ({
    name: 'prioritized',
    mode: 'weighted',
    limits: reuseLimits(p),
    eviction: 'lowest-priority',
    beta: p.beta,
    priority: (row) => Math.abs(Number.isFinite(row.advantage) ? row.advantage : 0) + p.epsilon,
    weight: (priority) => (p.alpha === 0 ? 1 : priority ** p.alpha),
  }),
});
