import { z } from 'zod';
import { hashSeed, Rng } from '../../core/rng.ts';
import { entryOrder } from './entry-order.ts';
import { PriorityHeap } from './priority-heap.ts';
import { capReplayed, ReplayScheduleShape, scheduledReplay } from './replay-schedule.ts';
import { defineSampler, ReuseParamsShape, reuseLimits } from './sampler.ts';
import { type SelectionPolicy, selectSlots } from './select.ts';

export const VersionPriorityParamsSchema = z.strictObject({
  decay: z.number().nonnegative().default(0.1).describe('Priority lost per use.'),
  noise: z
    .number()
    .nonnegative()
    .default(0)
    .describe('σ of Gaussian noise added to the priority (redrawn after every use, seeded).'),
  ...ReplayScheduleShape,
  ...ReuseParamsShape,
});
export type VersionPriorityParams = z.output<typeof VersionPriorityParamsSchema>;

const HIGHEST: SelectionPolicy = { mode: 'highest', beta: 0, weight: () => 1 };

/**
 * Priority replay on model version: priority = model_version − decay × use_count (+ N(0, σ²)); the
 * highest priorities are delivered first. Equal priorities are served first in, first out, where a
 * row coming back after its cooldown enters again (as Trinity-RFT's queue does; see
 * entry-order.ts). Fresh rollouts outrank old ones, and every reuse pushes an experience down by
 * `decay`. The noise for (experience, use count) is drawn
 * from a stream seeded by the buffer seed and the experience id, so a resumed run recomputes it
 * exactly. Its index is a max-heap of the deliverable rows. `replaySchedule` (replay-schedule.ts)
 * caps the past rows a call delivers by train step (delayed start, linear ramp); the batch is then
 * shorter, never topped up with older rows.
 */
export const versionPrioritySampler = defineSampler({
  name: 'version_priority',
  description:
    'Priority replay: model_version − decay·use_count (+ noise), highest first, ties first in first out; cooldown and use limit.',
  params: VersionPriorityParamsSchema,
  create: (p, ctx) => {
    const firstIn = entryOrder(ctx.keys, p.cooldownSteps);
    const heap = new PriorityHeap(ctx.keys, firstIn);
    return {
      name: 'version_priority',
      limits: reuseLimits(p),
      remover: 'lowest_priority',
      priority: (row, uses) => {
        const base = row.modelVersion - p.decay * uses;
        if (p.noise === 0) return base;
        return base + p.noise * new Rng(hashSeed(ctx.seed, 'priority-noise', row.id, uses)).normal();
      },
      update: (slot, deliverable) => {
        if (deliverable) heap.upsert(slot);
        else heap.remove(slot);
      },
      reset: () => heap.clear(),
      select: (view, n, opts) => {
        const sel = selectSlots(HIGHEST, { ...view, heap, entryOrder: firstIn }, n, opts);
        // The cap scales the replayed rows the plain sampler chose (it has no share of its own).
        const past = sel.slots.filter((s) => view.uses(s) > 0).length;
        const { cap } = scheduledReplay(p.replaySchedule, opts.step, past);
        return cap >= past ? sel : capReplayed(view, sel, cap);
      },
    };
  },
});
