import { z } from 'zod';
import { defineRemover } from './remover.ts';

/** Oldest (lowest seq) first: a ring buffer. Candidates already come in seq order. */
export const oldestRemover = defineRemover({
  name: 'oldest',
  description: 'Remove the oldest experiences first.',
  params: z.strictObject({}),
  create: () => ({
    name: 'oldest',
    order: () => undefined,
    reason: () => 'oldest',
  }),
});
