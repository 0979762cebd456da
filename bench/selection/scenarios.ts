import type { LearnerSimConfigInput } from '../../src/selectors/sim/learner-sim.ts';

/** One simulated setting: the learner simulator's config, the run length and the batch size. */
export interface SelectionScenario {
  name: string;
  description: string;
  sim: LearnerSimConfigInput;
  steps: number;
  batch: number;
}

const STEPS = 200;
const BATCH = 32;

/**
 * The default scenario uses the simulator's defaults, calibrated so that uniform random selection
 * wastes most of its rollouts (its effective task ratio is ~0.4, the range the BOTS paper reports
 * for random), reference columns are informative but noisy (per-task logit noise 0.3, pass rates
 * measured from 16 samples), and the learner's domain profile differs from the references'.
 */
export const SCENARIOS: Record<string, SelectionScenario> = {
  default: {
    name: 'default',
    description: 'informative weak/strong reference columns (noise sd 0.3 logits, 16-sample estimates)',
    sim: {},
    steps: STEPS,
    batch: BATCH,
  },
  noisy_refs: {
    name: 'noisy_refs',
    description: 'reference columns with heavy per-task noise (sd 1.2 logits)',
    sim: { refNoiseSd: 1.2 },
    steps: STEPS,
    batch: BATCH,
  },
  useless_refs: {
    name: 'useless_refs',
    description: 'reference columns unrelated to the tasks (random pass rates)',
    sim: { references: 'useless' },
    steps: STEPS,
    batch: BATCH,
  },
  no_refs: {
    name: 'no_refs',
    description: 'no reference columns at all',
    sim: { references: 'none' },
    steps: STEPS,
    batch: BATCH,
  },
  new_tasks: {
    name: 'new_tasks',
    description: '2,000 new tasks (same distribution) arrive at step 66',
    sim: { arrivals: [{ step: 66, count: 2000 }] },
    steps: STEPS,
    batch: BATCH,
  },
  nonbinary: {
    name: 'nonbinary',
    description: 'partial-credit rewards (each rollout scores Binomial(4, p)/4)',
    sim: { rewards: 'partial' },
    steps: STEPS,
    batch: BATCH,
  },
};

export const SCENARIO_NAMES = Object.keys(SCENARIOS);
