import { z } from 'zod';
import { defineRemover } from './remover.ts';

/** Lowest priority first (ties: oldest first): replay keeps what its sampler values most. */
export const lowestPriorityRemover = defineRemover({
  name: 'lowest_priority',
  description: 'Remove the experiences with the lowest priority first (ties: oldest first).',
  params: z.strictObject({}),
  create: () => ({
    name: 'lowest_priority',
    order: (candidates, rows) => {
      candidates.sort((a, b) => rows.priority[a]! - rows.priority[b]! || rows.seq[a]! - rows.seq[b]!);
    },
    reason: (slot, rows) => `lowest priority (${round(rows.priority[slot]!)})`,
  }),
});

function round(x: number): string {
  return Number.isInteger(x) ? String(x) : x.toFixed(4);
}
