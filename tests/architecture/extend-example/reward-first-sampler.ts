import { z } from 'zod';
import { defineSampler, ONCE } from '../../../src/buffer/samplers/sampler.ts';
import { selectSlots } from '../../../src/buffer/samplers/select.ts';

const HIGHEST = { mode: 'highest', beta: 0, weight: () => 1 } as const;

/** Highest reward first (newest first among equals), each experience delivered once. */
export const rewardFirstSampler = defineSampler({
  name: 'reward_first',
  description: 'Highest reward first, each experience delivered once.',
  params: z.strictObject({}),
  create: () => ({
    name: 'reward_first',
    limits: ONCE,
    remover: 'oldest',
    priority: (row) => row.reward,
    select: (view, n, opts) => selectSlots(HIGHEST, view, n, opts),
  }),
});
