import { z } from 'zod';
import { SumTree } from '../../core/sum-tree.ts';
import { defineSampler, ReuseParamsShape, reuseLimits } from './sampler.ts';
import { type SelectionPolicy, selectSlots } from './select.ts';

export const AdvantagePriorityParamsSchema = z.strictObject({
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
export type AdvantagePriorityParams = z.output<typeof AdvantagePriorityParamsSchema>;

/**
 * Prioritised experience replay on |advantage|: rows are drawn at random without replacement with
 * probability ∝ (|A| + ε)^α, and each carries an importance weight (N·P(i))^−β normalised by the
 * largest weight in the batch, so weights only scale updates down. The stored priority is |A| + ε.
 * Its index is a sum tree of the deliverable rows' sampling weights.
 */
export const advantagePrioritySampler = defineSampler({
  name: 'advantage_priority',
  description:
    'Prioritised replay on |advantage| with exponent α and importance weights β; use limit, cooldown.',
  params: AdvantagePriorityParamsSchema,
  create: (p) => {
    const policy: SelectionPolicy = {
      mode: 'weighted',
      beta: p.beta,
      weight: (priority) => (p.alpha === 0 ? 1 : priority ** p.alpha),
    };
    const tree = new SumTree();
    return {
      name: 'advantage_priority',
      limits: reuseLimits(p),
      remover: 'lowest_priority',
      priority: (row) => Math.abs(Number.isFinite(row.advantage) ? row.advantage : 0) + p.epsilon,
      update: (slot, deliverable, priority) => tree.set(slot, deliverable ? policy.weight(priority) : 0),
      reset: (size) => tree.reset(size, () => 0),
      select: (view, n, opts) => selectSlots(policy, { ...view, tree }, n, opts),
    };
  },
});
