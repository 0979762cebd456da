import { z } from 'zod';
import { freshSlots, mixFreshAndReplay } from './replay-pools.ts';
import { ReplayScheduleShape, scheduledReplay } from './replay-schedule.ts';
import { defineSampler, ReuseParamsShape, reuseLimits } from './sampler.ts';

export const DotsReplayParamsSchema = z.strictObject({
  window: z
    .number()
    .int()
    .positive()
    .default(512)
    .describe(
      'The replay buffer: the most recent rollouts (by arrival), this many; older ones are never replayed.',
    ),
  replayShare: z
    .number()
    .min(0)
    .max(1)
    .default(0.5)
    .describe('Share of every batch drawn from the replay window (the rest is fresh, on-policy).'),
  informativeOnly: z
    .boolean()
    .default(true)
    .describe('Replay only rollouts with a non-zero advantage (a uniform group carries no gradient).'),
  ...ReplayScheduleShape,
  ...ReuseParamsShape,
});
export type DotsReplayParams = z.output<typeof DotsReplayParamsSchema>;

/**
 * DOTS rollout replay (Sun et al., "Improving Data Efficiency for LLM Reinforcement Fine-tuning
 * Through Difficulty-targeted Online Data Selection and Rollout Replay", arXiv:2506.05316): a
 * first-in-first-out buffer of the most recent rollouts (`window`, 512 by default); every batch
 * holds fresh rollouts plus a `replayShare` of rollouts drawn uniformly at random from that window,
 * trained with an off-policy GRPO objective (the importance ratio against each rollout's stored
 * behaviour log-probs, clipped: the trainer's). Replayed rows come newest first.
 *
 * Departures: the paper generates fresh rollouts for only part of each batch; here the explorer's
 * schedule is its own (pair this sampler with a rate limiter, `samplesPerInsert`, to get the same
 * rollout saving). The window is the newest `window` stored rows, whatever the buffer's capacity
 * (set `capacity: 512` to also bound storage). `informativeOnly` is our reading of the paper's
 * keeping only groups that carry a learning signal. The paper's difficulty-targeted selection of
 * tasks (DOTS proper) is a task selector's job, not the buffer's.
 */
export const dotsReplaySampler = defineSampler({
  name: 'dots_replay',
  description:
    'DOTS rollout replay (arXiv:2506.05316): fresh rollouts plus a share drawn uniformly from the 512 most recent.',
  params: DotsReplayParamsSchema,
  create: (p) => ({
    name: 'dots_replay',
    limits: reuseLimits(p),
    remover: 'oldest',
    priority: () => 0,
    fixedPriority: 0,
    select: (view, n, { rng, step }) => {
      // The window: the newest `window` stored rows, eligible or not.
      let first = view.size;
      for (let left = p.window; first > 0 && left > 0; ) if (view.alive(--first)) left--;
      const pool: number[] = [];
      for (let s = Math.max(first, view.start); s < view.end; s++) {
        if (!view.eligible(s) || view.uses(s) === 0) continue;
        if (p.informativeOnly && !(Math.abs(view.facts(s).advantage) > 0)) continue;
        pool.push(s);
      }
      const { target, cap } = scheduledReplay(p.replaySchedule, step, n, p.replayShare);
      const fresh = freshSlots(view);
      const want = Math.min(pool.length, Math.max(target, n - fresh.length), n, cap);
      const drawn = rng
        .sampleDistinct(pool.length, want)
        .map((i) => pool[i]!)
        .sort((a, b) => b - a);
      const slots = mixFreshAndReplay(fresh, drawn, n, target, cap);
      return { slots, weights: slots.map(() => 1) };
    },
  }),
});
