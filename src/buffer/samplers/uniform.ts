import { z } from 'zod';
import { SumTree } from '../../core/sum-tree.ts';
import { defineSampler, ReuseParamsShape, reuseLimits } from './sampler.ts';
import { type SelectionPolicy, selectSlots } from './select.ts';

const UNIFORM: SelectionPolicy = { mode: 'weighted', beta: 0, weight: () => 1 };

/**
 * Uniform replay: every eligible experience equally likely (without replacement within a batch).
 * Its index is a sum tree of weight 1 per deliverable row, so a draw from 1M rows needs no scan.
 */
export const uniformSampler = defineSampler({
  name: 'uniform',
  description: 'Uniform random replay without replacement within a batch; use limit, cooldown.',
  params: z.strictObject({ ...ReuseParamsShape }),
  create: (p) => {
    const tree = new SumTree();
    return {
      name: 'uniform',
      limits: reuseLimits(p),
      remover: 'oldest',
      priority: () => 0,
      fixedPriority: 0,
      update: (slot, deliverable) => tree.set(slot, deliverable ? 1 : 0),
      reset: (size) => tree.reset(size, () => 0),
      select: (view, n, opts) => selectSlots(UNIFORM, { ...view, tree }, n, opts),
    };
  },
});
