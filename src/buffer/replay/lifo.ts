import { z } from 'zod';
import { defineDiscipline, ONCE } from './discipline.ts';

/** LIFO: newest first, each experience delivered once (favours the freshest rollouts). */
export const lifoDiscipline = defineDiscipline({
  name: 'lifo',
  description: 'Stack: newest experience first, each delivered once.',
  params: z.strictObject({}),
  create: () => ({
    name: 'lifo',
    mode: 'newest',
    limits: ONCE,
    eviction: 'oldest',
    beta: 0,
    priority: () => 0,
    weight: () => 1,
  }),
});
