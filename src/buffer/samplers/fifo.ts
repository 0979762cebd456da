import { z } from 'zod';
import { defineSampler, ONCE } from './sampler.ts';
import { selectSlots } from './select.ts';

const OLDEST = { mode: 'oldest', beta: 0, weight: () => 1 } as const;

/** FIFO queue: oldest first, each experience delivered once. The no-replay baseline; no index of its own (a scan from the buffer's oldest live slot). */
export const fifoSampler = defineSampler({
  name: 'fifo',
  description: 'Queue: oldest experience first, each delivered exactly once (no replay).',
  params: z.strictObject({}),
  create: () => ({
    name: 'fifo',
    limits: ONCE,
    remover: 'oldest',
    priority: () => 0,
    fixedPriority: 0,
    select: (view, n, opts) => selectSlots(OLDEST, view, n, opts),
  }),
});
