import { z } from 'zod';
import type { CandidateView, Selection } from './sampler.ts';

/**
 * When replay is allowed in a run, for the samplers that replay (exgrpo, dots_replay,
 * version_priority): a delayed start with a linear ramp up, and an optional stop with a linear
 * decay before it, over train steps. While scale(step) < 1 the replayed (past) rows a call of n may
 * deliver are capped at round(n × share × scale(step)), where share is the sampler's own
 * `replayShare` (a sampler without one, version_priority, caps the past rows its plain choice
 * holds, R, at round(R × scale(step)), keeping the first in its order) and
 *
 *   scale(t) = min(up(t), down(t))
 *   up(t)    = 0 for t < startStep;  min(1, (t − startStep) / rampSteps) from then on
 *   down(t)  = 1 without stopStep;  otherwise 0 for t ≥ stopStep and
 *              min(1, (stopStep − t) / decaySteps) before it
 *
 * (rampSteps 0: up is 1 from startStep on; decaySteps 0: down is 1 until stopStep). Where scale is
 * 1 the sampler behaves exactly as without a schedule. Fresh (never delivered) rows are never
 * capped, so a call whose scale is 0 delivers what `fifo` would. The default (start 0, ramp 0, no
 * stop) changes nothing.
 *
 * Why: on the real learners (docs/buffer.md, "Replay methods") replaying from the first update on
 * trails no-replay for the first half of a run and gains at its end (hence the delayed start and
 * ramp; ExGRPO, arXiv:2510.02245, likewise delays replay), while replay as extra updates is ahead
 * early and behind late (hence the stop and decay: replay-ratio annealing). The scale is a function
 * of the call's train step only, so a resumed run (the same step) gets the same cap.
 */
export const ReplayScheduleSchema = z
  .strictObject({
    startStep: z
      .number()
      .int()
      .nonnegative()
      .default(0)
      .describe('No replay before this train step (0 = from the first).'),
    rampSteps: z
      .number()
      .int()
      .nonnegative()
      .default(0)
      .describe(
        'Train steps over which the replay cap grows linearly to its full value from startStep on (0 = full at once).',
      ),
    stopStep: z
      .number()
      .int()
      .positive()
      .optional()
      .describe('No replay from this train step on (absent = replay to the end of the run).'),
    decaySteps: z
      .number()
      .int()
      .nonnegative()
      .default(0)
      .describe(
        'Train steps before stopStep over which the replay cap falls linearly to none (0 = full until stopStep; needs stopStep).',
      ),
  })
  .superRefine((s, ctx) => {
    if (s.stopStep === undefined) {
      if (s.decaySteps > 0)
        ctx.addIssue({
          code: 'custom',
          path: ['decaySteps'],
          message: 'decaySteps needs a stopStep (the step where the decay reaches no replay)',
        });
    } else if (s.stopStep <= s.startStep)
      ctx.addIssue({
        code: 'custom',
        path: ['stopStep'],
        message: `stopStep ${s.stopStep} must be after startStep ${s.startStep} (otherwise the schedule never replays)`,
      });
  })
  .default({ startStep: 0, rampSteps: 0, decaySteps: 0 });
export type ReplaySchedule = z.output<typeof ReplayScheduleSchema>;

/** The schedule param shared by the replaying samplers. */
export const ReplayScheduleShape = {
  replaySchedule: ReplayScheduleSchema.describe(
    'Delayed start and linear ramp up, optional stop and linear decay of the replayed rows a call may deliver: { startStep, rampSteps, stopStep, decaySteps } (default: full replay from the start to the end).',
  ),
};

/** scale(t) in [0, 1]; a call without a step (outside a buffer) gets the full scale. */
export function replayScale(s: ReplaySchedule, step: number | undefined): number {
  if (step === undefined) return 1;
  return Math.min(rampUp(s, step), decayDown(s, step));
}

function rampUp(s: ReplaySchedule, step: number): number {
  if (step < s.startStep) return 0;
  if (s.rampSteps === 0) return 1;
  return Math.min(1, (step - s.startStep) / s.rampSteps);
}

function decayDown(s: ReplaySchedule, step: number): number {
  if (s.stopStep === undefined) return 1;
  if (step >= s.stopStep) return 0;
  if (s.decaySteps === 0) return 1;
  return Math.min(1, (s.stopStep - step) / s.decaySteps);
}

/**
 * A call's replay at `step`: `target` replayed rows of `n` (the sampler's `share`, scaled) and the
 * `cap` it may not exceed. At full scale the cap is `n`: once the ramp is done the sampler behaves
 * exactly as without a schedule (a short fresh pool is topped up with replayed rows again).
 */
export function scheduledReplay(
  s: ReplaySchedule,
  step: number | undefined,
  n: number,
  share = 1,
): { target: number; cap: number } {
  const scale = replayScale(s, step);
  const target = Math.round(n * share * scale);
  return { target, cap: scale < 1 ? target : n };
}

/**
 * Keeps a selection's fresh rows and its first `cap` past rows (delivery order and weights kept):
 * the schedule applied after a sampler chose as if unscheduled.
 */
export function capReplayed(view: CandidateView, sel: Selection, cap: number): Selection {
  const slots: number[] = [];
  const weights: number[] = [];
  let past = 0;
  sel.slots.forEach((s, i) => {
    if (view.uses(s) > 0 && past++ >= cap) return;
    slots.push(s);
    weights.push(sel.weights[i]!);
  });
  return { slots, weights };
}
