import { z } from 'zod';
import type { Rng } from '../../core/rng.ts';
import {
  accuracyBucket,
  freshSlots,
  isCorrect,
  mixFreshAndReplay,
  pastByTask,
  rollingAccuracy,
} from './replay-pools.ts';
import { ReplayScheduleShape, scheduledReplay } from './replay-schedule.ts';
import { type CandidateView, defineSampler, ReuseParamsShape, reuseLimits } from './sampler.ts';
import { drawWithoutReplacement } from './select.ts';

export const ExgrpoParamsSchema = z.strictObject({
  replayShare: z
    .number()
    .min(0)
    .max(1)
    .default(0.5)
    .describe(
      'Share of every batch drawn from replayed successful trajectories (the rest is fresh, on-policy).',
    ),
  successThreshold: z.number().default(1).describe('A rollout is correct when its reward reaches this.'),
  accuracyWindow: z
    .number()
    .int()
    .positive()
    .default(8)
    .describe("A task's current accuracy: the correct share of its most recent rollouts, this many."),
  bucketStd: z
    .number()
    .nonnegative()
    .default(1)
    .describe(
      'σ of the Gaussian (mean 0.5) over bucket centres that weights questions; 0 = strict order medium, low, high.',
    ),
  ...ReplayScheduleShape,
  ...ReuseParamsShape,
});
export type ExgrpoParams = z.output<typeof ExgrpoParamsSchema>;

/** Bucket centres for the Gaussian preference, and the strict order when σ = 0. */
const CENTRE = { low: 0.125, medium: 0.5, high: 0.875 } as const;
const STRICT = { medium: 0, low: 1, high: 2 } as const;
type ReplayBucket = keyof typeof CENTRE;

interface Question {
  task: string;
  bucket: ReplayBucket;
  /** Its lowest-entropy correct past trajectory. */
  pick: number;
  newest: number;
}

/**
 * ExGRPO (Zhan et al., "ExGRPO: Learning to Reason from Experience", arXiv:2510.02245): replay
 * successful trajectories, organised by their question's current rollout accuracy.
 *
 * - Questions are bucketed by rolling accuracy (replay-pools.ts): low (0, 25%], medium (25, 75%],
 *   high (75, 100%); solved (100%) and unsolved (0) questions are not replayed.
 * - Questions are drawn without replacement with weight N(bucket centre; 0.5, σ) — medium first —
 *   or, with σ = 0, strictly medium, then low, then high (ties: the most recent question first).
 * - From each drawn question, its lowest-entropy correct trajectory (src/buffer/index/sequence-stats.ts).
 * - Each batch mixes fresh (on-policy) rollouts with replayed ones at `replayShare` (the paper's ρ).
 *
 * Departures: accuracy is the share over the task's last `accuracyWindow` stored rollouts rather
 * than its latest on-policy group; entropy is the behaviour policy's sampled-token estimate at
 * collection time, not recomputed under the current policy; solved questions stay in the table
 * (never replayed) instead of being removed. The paper delays replay until the learner has
 * experiences worth replaying (triggered by the training batch's accuracy); here the delay is by
 * train step, `replaySchedule` (replay-schedule.ts: a start step and a linear ramp; default none).
 * The policy-shaping objective is the trainer's
 * (`offPolicy: { mode: shaping }`, docs/trainer.md).
 */
export const exgrpoSampler = defineSampler({
  name: 'exgrpo',
  description:
    'ExGRPO (arXiv:2510.02245): fresh rollouts plus the lowest-entropy correct trajectory of medium-accuracy questions.',
  params: ExgrpoParamsSchema,
  create: (p) => ({
    name: 'exgrpo',
    limits: reuseLimits(p),
    remover: 'oldest',
    priority: () => 0,
    fixedPriority: 0,
    needsEntropy: true,
    select: (view, n, { rng, step }) => {
      const questions = replayQuestions(view, p);
      const ordered = orderQuestions(questions, p.bucketStd, rng).map((q) => q.pick);
      const { target, cap } = scheduledReplay(p.replaySchedule, step, n, p.replayShare);
      const slots = mixFreshAndReplay(freshSlots(view), ordered, n, target, cap);
      return { slots, weights: slots.map(() => 1) };
    },
  }),
});

/** Questions with a correct past trajectory in a replayable bucket, each with its chosen trajectory. */
export function replayQuestions(view: CandidateView, p: ExgrpoParams): Question[] {
  const acc = rollingAccuracy(view, p.accuracyWindow, p.successThreshold);
  const byTask = pastByTask(view, (s) => isCorrect(view.facts(s).reward, p.successThreshold));
  const out: Question[] = [];
  for (const [task, slots] of byTask) {
    const bucket = accuracyBucket(acc.get(task) ?? 0);
    if (bucket === 'unsolved' || bucket === 'solved') continue;
    const entropy = (s: number) => {
      const h = view.facts(s).entropy;
      return Number.isNaN(h) ? Number.POSITIVE_INFINITY : h;
    };
    let pick = slots[0]!;
    for (const s of slots)
      if (entropy(s) < entropy(pick) || (entropy(s) === entropy(pick) && s > pick)) pick = s;
    out.push({ task, bucket, pick, newest: view.seq[slots[slots.length - 1]!]! });
  }
  return out;
}

function orderQuestions(questions: Question[], std: number, rng: Rng): Question[] {
  const base = [...questions].sort((a, b) => STRICT[a.bucket] - STRICT[b.bucket] || b.newest - a.newest);
  if (std === 0 || base.length === 0) return base;
  const weights = Float64Array.from(base, (q) =>
    Math.exp(-((CENTRE[q.bucket] - 0.5) ** 2) / (2 * std * std)),
  );
  return drawWithoutReplacement(weights, base.length, rng).picks.map((i) => base[i]!);
}
