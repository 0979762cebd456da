import { z } from 'zod';
import { defineDiscipline, ONCE } from './discipline.ts';

/** FIFO queue: oldest first, each experience delivered once. The no-replay baseline. */
export const fifoDiscipline = defineDiscipline({
  name: 'fifo',
  description: 'Queue: oldest experience first, each delivered exactly once (no replay).',
  params: z.strictObject({}),
  create: () => ({
    name: 'fifo',
    mode: 'oldest',
    limits: ONCE,
    eviction: 'oldest',
    beta: 0,
    priority: () => 0,
    weight: () => 1,
  }),
});
