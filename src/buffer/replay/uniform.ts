import { z } from 'zod';
import { defineDiscipline, ReuseParamsShape, reuseLimits } from './discipline.ts';

/** Uniform replay: every eligible experience equally likely (without replacement within a batch). */
export const uniformDiscipline = defineDiscipline({
  name: 'uniform',
  description: 'Uniform random replay without replacement within a batch; use limit, cooldown.',
  params: z.strictObject({ ...ReuseParamsShape }),
  create: (p) => ({
    name: 'uniform',
    mode: 'weighted',
    limits: reuseLimits(p),
    eviction: 'oldest',
    beta: 0,
    priority: () => 0,
    weight: () => 1,
  }),
});
