import { z } from 'zod';
import { defineSampler, ONCE } from './sampler.ts';
import { selectSlots } from './select.ts';

const NEWEST = { mode: 'newest', beta: 0, weight: () => 1 } as const;

/** LIFO: newest first, each experience delivered once (favours the freshest rollouts). */
export const lifoSampler = defineSampler({
  name: 'lifo',
  description: 'Stack: newest experience first, each delivered once.',
  params: z.strictObject({}),
  create: () => ({
    name: 'lifo',
    limits: ONCE,
    remover: 'oldest',
    priority: () => 0,
    fixedPriority: 0,
    select: (view, n, opts) => selectSlots(NEWEST, view, n, opts),
  }),
});
