// The replay leaderboard's line-up: the classic disciplines and the published LLM replay methods as
// buffer samplers, each with the off-policy correction its paper uses and how many rows an update
// asks the buffer for. `fifo` asks for exactly the step's fresh rows (each trained once, no replay):
// the baseline. Every replay method asks for twice that (the fresh rows and as many again), so the
// trainer's extra compute is the same request for all of them; what each delivers is measured.
import type { ExperienceBufferConfigInput } from '../../src/buffer/experience-config.ts';
import { type ReplaySchedule, ReplayScheduleSchema } from '../../src/buffer/samplers/replay-schedule.ts';
import type { PolicyGradientConfigInput } from '../../src/tiny/pg-config.ts';
import type { ProtocolMethod } from '../protocol/method.ts';
import { PUBLISHED_DEFAULTS } from '../protocol/tuning.ts';

export interface ReplayMethod {
  name: string;
  description: string;
  sampler: NonNullable<ExperienceBufferConfigInput['sampler']>;
  /** Rows an update asks for, as a multiple of the step's fresh rows. */
  request: number;
  trainer?: PolicyGradientConfigInput;
  /**
   * `ramp`: the sampler's `replaySchedule` is { startStep 0, rampSteps: the run's planned updates
   * (`--steps`) }, so the replayed rows grow linearly from none at the first update to the
   * method's full share at the last. `late`: { startStep: round(¾ × planned updates), rampSteps 0 },
   * no replay until the last quarter of the run, then the full share (samplers/replay-schedule.ts).
   * Neither is tuned: both scale with the run, whatever its length.
   */
  schedule?: 'ramp' | 'late';
  /**
   * Extra updates per step on replay-only batches (RePO's "more optimisation steps at equal
   * rollouts"): the step's own update trains exactly its fresh rows, as fifo does (`request` 1, the
   * sampler limited to the fresh pool), then `replayUpdates` more updates each train up to as many
   * past rows, chosen by the method's sampler from the rows delivered before (`pool: past`), with
   * the method's correction. Absent: replayed rows join the step's one update.
   */
  replayUpdates?: number;
  /**
   * Where the extra updates' rows come from: `past` (default), the method's sampler over the rows
   * delivered before; `step`, the step's own fresh rows again (a second epoch on fifo's batch, each
   * copy's use count raised by one so the correction applies; not a buffer delivery): the control
   * for more updates at the same learning rate without older rows.
   */
  replayFrom?: 'past' | 'step';
  /** The trainer's learning rate as a multiple of the run's `--lr` (a control for more optimisation, not replay). */
  lrScale?: number;
  /**
   * Replay-ratio annealing of the extra updates (with `replayUpdates`): the replay batch of step t
   * holds round(size × scale(t)) past rows, scale(t) the library's replay schedule (replay-schedule.ts)
   * { stopStep: round(until × planned updates) + 1, decaySteps: stopStep − 1 with `decay` (a linear
   * fall from the full batch at step 1 to none at stopStep), else 0 (the full batch, then none) };
   * a batch of 0 rows takes no update. The sampler itself runs unscheduled.
   */
  anneal?: { until: number; decay: boolean };
}

/** The replay schedule of an annealed method's extra updates, over a run of `plannedSteps` updates. */
export function annealSchedule(m: ReplayMethod, plannedSteps: number): ReplaySchedule | undefined {
  if (!m.anneal) return undefined;
  const stopStep = Math.round(m.anneal.until * plannedSteps) + 1;
  return ReplayScheduleSchema.parse({ stopStep, decaySteps: m.anneal.decay ? stopStep - 1 : 0 });
}

/** The sampler config a run of `m` uses, its schedule (if any) scaled to `plannedSteps` updates. */
export function samplerFor(m: ReplayMethod, plannedSteps: number): ReplayMethod['sampler'] {
  if (!m.schedule) return m.sampler;
  const replaySchedule =
    m.schedule === 'ramp'
      ? { startStep: 0, rampSteps: plannedSteps }
      : { startStep: Math.round(0.75 * plannedSteps), rampSteps: 0 };
  return { ...m.sampler, params: { ...m.sampler.params, replaySchedule } };
}

/** `m` with its replay ramped over the run, named `<name>_ramp`. */
const ramped = (m: ReplayMethod): ReplayMethod => ({
  ...m,
  name: `${m.name}_ramp`,
  description: `${m.description}; replayed rows ramp linearly from none at the first update to the full share at the run's last planned update`,
  schedule: 'ramp',
});

/** `m` replaying only in the last quarter of the run, named `<name>_late`. */
const late = (m: ReplayMethod): ReplayMethod => ({
  ...m,
  name: `${m.name}_late`,
  description: `${m.description}; no replay before ¾ of the run's planned updates, the full share from then on`,
  schedule: 'late',
});

/** `exgrpo_updates` with its extra updates annealed (`anneal`), named `exgrpo_updates_<suffix>`. */
function annealed(until: number, decay: boolean, suffix: string, what: string): ReplayMethod {
  const base = EXGRPO_UPDATES;
  return {
    ...base,
    name: `${base.name}_${suffix}`,
    description: `${base.description}; ${what}`,
    anneal: { until, decay },
  };
}

const clip: PolicyGradientConfigInput = { offPolicy: { mode: 'clip' } };

const repo = (strategy: string): ReplayMethod => ({
  name: `repo_${strategy}`,
  description: `RePO (arXiv:2506.09340): beside each fresh group, 4 past rollouts of the same prompt by ${strategy}; off-policy advantages apart, PPO clip`,
  sampler: { type: 'repo', params: { strategy } },
  request: 2,
  trainer: clip,
});

const BASE_METHODS: readonly ReplayMethod[] = [
  {
    name: 'fifo',
    description: 'no replay: each fresh rollout trained on once, oldest first (the baseline)',
    sampler: { type: 'fifo', params: {} },
    request: 1,
  },
  {
    name: 'uniform',
    description: 'uniform replay over the stored rows, each at most 3 times',
    sampler: { type: 'uniform', params: { maxUses: 3 } },
    request: 2,
    trainer: clip,
  },
  {
    name: 'version_priority',
    description: "Trinity-RFT's version priority (decay 0.5), each row at most 3 times",
    sampler: { type: 'version_priority', params: { decay: 0.5, maxUses: 3 } },
    request: 2,
    trainer: clip,
  },
  {
    name: 'advantage_priority',
    description: 'prioritised replay on |advantage| (α 0.6, β 0.4), each row at most 3 times',
    sampler: { type: 'advantage_priority', params: { alpha: 0.6, beta: 0.4, maxUses: 3 } },
    request: 2,
    trainer: clip,
  },
  {
    name: 'exgrpo',
    description:
      'ExGRPO (arXiv:2510.02245): half fresh, half the lowest-entropy correct trajectory of medium-accuracy questions; policy shaping',
    sampler: { type: 'exgrpo', params: {} },
    request: 2,
    trainer: { offPolicy: { mode: 'shaping' } },
  },
  repo('recency'),
  repo('reward'),
  repo('variance'),
  repo('entropy'),
  repo('random'),
  {
    name: 'dots_replay',
    description:
      'DOTS rollout replay (arXiv:2506.05316): half fresh, half uniform from the 512 newest informative rollouts; PPO clip',
    sampler: { type: 'dots_replay', params: {} },
    request: 2,
    trainer: clip,
  },
];

const byName = (name: string) => BASE_METHODS.find((m) => m.name === name)!;

const EXGRPO_UPDATES: ReplayMethod = {
  ...byName('exgrpo'),
  name: 'exgrpo_updates',
  description:
    "fifo's update on the fresh rows, then one extra update on as many past rows by ExGRPO's rule (lowest-entropy correct trajectory of medium-accuracy questions); policy shaping",
  request: 1,
  replayUpdates: 1,
};

/** The line-up: the methods at their defaults, then the ramped variants (issue 42's follow-up). */
export const REPLAY_METHODS: readonly ReplayMethod[] = [
  ...BASE_METHODS,
  ramped(byName('version_priority')),
  ramped(byName('exgrpo')),
  ramped(byName('dots_replay')),
  {
    name: 'repo_revisit',
    description:
      'RePO (arXiv:2506.09340) recency, plus the prompts of the previous explore step revisited (4 past rollouts each) in the room the fresh groups leave; off-policy advantages apart, PPO clip',
    sampler: { type: 'repo', params: { strategy: 'recency', revisitSteps: 1 } },
    request: 2,
    trainer: clip,
  },
  // Added after the leaderboard run at 6396b78 and measured on fresh seeds (docs/buffer.md).
  late(byName('version_priority')),
  // Replay as extra updates (issue 42 follow-up, pre-registered in docs/buffer.md): fifo's update,
  // then one more on a batch of past rows chosen by the method's sampler.
  {
    ...byName('version_priority'),
    name: 'version_priority_updates',
    description:
      "fifo's update on the fresh rows, then one extra update on as many past rows by Trinity-RFT's version priority (decay 0.5, each row at most 3 times); PPO clip",
    request: 1,
    replayUpdates: 1,
  },
  EXGRPO_UPDATES,
  // The control for the two above: fifo with twice the learning rate — as much more optimisation
  // per step without a replayed row (reported beside them, not a candidate).
  {
    ...byName('fifo'),
    name: 'fifo_lr2',
    description: 'fifo with twice the learning rate: the control for extra optimisation without replay',
    lrScale: 2,
  },
  // The second control (added after the report runs above, docs/buffer.md): fifo's update, then one
  // more on the same fresh rows (PPO clip against their behaviour log-probs).
  {
    ...byName('fifo'),
    name: 'fifo_twice',
    description:
      "fifo's update, then a second on the same fresh rows (PPO clip): the control for more updates at the same learning rate without replay",
    replayUpdates: 1,
    replayFrom: 'step',
    trainer: clip,
  },
  // Replay-ratio annealing of exgrpo_updates (issue 42 follow-up, pre-registered in docs/buffer.md):
  // its extra updates were ahead of fifo early and behind late, so they stop or fade out.
  annealed(1 / 3, false, 'stop33', 'full extra updates through the first third of the run, none after'),
  annealed(
    0.5,
    true,
    'anneal50',
    'the extra batch falls linearly from full at the first update to none at half the run',
  ),
  annealed(
    1,
    true,
    'anneal100',
    'the extra batch falls linearly from full at the first update to none at the end',
  ),
];

export const REPLAY_METHOD_NAMES = REPLAY_METHODS.map((m) => m.name);

/** The protocol's view: no method reads anything about the learner but its own rollouts; none is tuned. */
export function protocolMethod(m: ReplayMethod): ProtocolMethod {
  return { name: m.name, description: m.description, information: [], tuning: PUBLISHED_DEFAULTS };
}
