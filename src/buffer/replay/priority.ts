import { z } from 'zod';
import { hashSeed, Rng } from '../../core/rng.ts';
import { defineDiscipline, ReuseParamsShape, reuseLimits } from './discipline.ts';

export const PriorityParamsSchema = z.strictObject({
  decay: z.number().nonnegative().default(0.1).describe('Priority lost per use.'),
  noise: z
    .number()
    .nonnegative()
    .default(0)
    .describe('σ of Gaussian noise added to the priority (redrawn after every use, seeded).'),
  ...ReuseParamsShape,
});
export type PriorityParams = z.output<typeof PriorityParamsSchema>;

/**
 * Priority replay: priority = model_version − decay × use_count (+ N(0, σ²)); the highest
 * priorities are delivered first (ties: newest first). Fresh rollouts outrank old ones, and every
 * reuse pushes an experience down by `decay`. The noise for (experience, use count) is drawn from
 * a stream seeded by the buffer seed and the experience id, so a resumed run recomputes it exactly.
 */
export const priorityDiscipline = defineDiscipline({
  name: 'priority',
  description:
    'Priority replay: model_version − decay·use_count (+ noise), highest first; cooldown and use limit.',
  params: PriorityParamsSchema,
  create: (p, ctx) => ({
    name: 'priority',
    mode: 'highest',
    limits: reuseLimits(p),
    eviction: 'lowest-priority',
    beta: 0,
    priority: (row, uses) => {
      const base = row.modelVersion - p.decay * uses;
      if (p.noise === 0) return base;
      return base + p.noise * new Rng(hashSeed(ctx.seed, 'priority-noise', row.id, uses)).normal();
    },
    weight: () => 1,
  }),
});
