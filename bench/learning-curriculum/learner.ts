// One run of the real tiny learner on the curriculum pool: a selector picks tasks, the tiny policy
// samples a group per task, GRPO advantages, one policy-gradient update per step. This is the RFT
// loop of `winnow run` stripped to what a selection benchmark needs (no database, no run folder),
// so that 30 runs fit in a few minutes on a laptop. Like DAPO's dynamic sampling (Winnow's
// reward_std_filter refill), each update trains on a fixed number of groups that carry a gradient, so
// selection shows in the rollouts a step costs and in which tasks it learns from.

import type { Experience } from '../../src/core/experience.ts';
import { hashSeed } from '../../src/core/rng.ts';
import type { Task } from '../../src/core/task.ts';
import type { Generation } from '../../src/models/rollout-model.ts';
import { createSelector, type SelectorConfig } from '../../src/selectors/registry.ts';
import { buildStages, type StageConfig } from '../../src/selectors/stages/registry.ts';
import { type RolloutRequest, runStagedStepAsync } from '../../src/selectors/stages/staged-step.ts';
import type { PreRolloutStage } from '../../src/selectors/stages/types.ts';
import { taskViewFromTasks } from '../../src/selectors/task-view.ts';
import type { Selector, SelectorTaskView } from '../../src/selectors/types.ts';
import { evaluateAccuracy } from '../../src/tiny/evaluate.ts';
import type { PolicyGradientConfigInput } from '../../src/tiny/pg-config.ts';
import type { TinyPolicy } from '../../src/tiny/policy.ts';
import { PolicyGradientTrainer } from '../../src/tiny/policy-gradient-trainer.ts';
import { exactPassRates } from './exact-pass-rate.ts';
import { OraclePassRateSelector } from './oracle.ts';
import { BenchRoundsStage } from './rounds-stage.ts';

export interface LearnerSettings {
  /** Training steps (policy updates). */
  steps: number;
  /** Groups with a gradient each update trains on. */
  trainGroups: number;
  /** Tasks per rollout round, rollouts per task, and the most rounds a step may take. */
  batchTasks: number;
  repeat: number;
  maxRounds: number;
  /** Held-out accuracy (greedy) every `every` steps. */
  every: number;
  lr: number;
  /** The oracle re-reads the true pass rates every this many steps. */
  oracleEvery: number;
  /** The most updates a rollout-budgeted run may take (a method that finds groups cheaply runs longer). */
  maxSteps: number;
}

export interface CurvePoint {
  step: number;
  /** Gradient updates taken (a step whose rounds found no group with a gradient takes none). */
  updates: number;
  rollouts: number;
  accuracy: number;
  /** Held-out accuracy per level name. */
  levels: Record<string, number>;
}

export interface LearningCurve {
  selector: string;
  seed: number;
  points: CurvePoint[];
  /** Share of selected tasks whose group had mixed rewards (a GRPO gradient), over all steps. */
  effective: number;
  rollouts: number;
  /** Distinct tasks rolled out over the run (how concentrated the selection was). */
  distinct: number;
  /** Rollout groups per level (meta.domain) over the run: where the selector spent its rollouts. */
  picked: Record<string, number>;
  seconds: number;
  /** Rows the trainer trained on over the run, and how many were replays (`useCount > 1`); absent in older stored runs. */
  trainedSamples?: number;
  replayedSamples?: number;
}

/**
 * Where an update's rows come from when not straight from the step's fresh groups (bench replay:
 * an experience buffer and its sampler). `choose` gets the step's fresh rows and returns what the
 * trainer trains on; `trained` follows the update (the buffer acknowledges its leases there).
 */
export interface BatchSource {
  /** Trainer settings the source needs (e.g. the off-policy correction of replayed rows). */
  trainer?: PolicyGradientConfigInput;
  choose(fresh: Experience[], step: number): Promise<Experience[]>;
  /**
   * Extra updates after the step's own, each on a replay-only batch of up to `size` rows
   * (`replayUpdates` of a replay method); an empty batch ends them. Before `trained(step)`.
   */
  replayUpdates?: number;
  replayBatch?(step: number, size: number): Promise<Experience[]>;
  trained(step: number): Promise<void>;
}

/** How a bench entry builds its selector: a registry config, or the oracle. */
export type SelectorRecipe =
  | { config: SelectorConfig; stages?: StageConfig[] }
  | { oracle: true; target: number; stages?: StageConfig[] };

export interface LearnerInputs {
  train: readonly Task[];
  heldout: readonly Task[];
  /** The tiny policy this learner starts from (each run loads a fresh copy). */
  load: (options: { sampleSeed: number }) => Promise<TinyPolicy>;
}

/** The view without the reference columns, for selectors that must not see them. */
export function viewWithoutReferences(view: SelectorTaskView): SelectorTaskView {
  const features = { ...view.features };
  delete features['weak_pass_rate'];
  delete features['strong_pass_rate'];
  return { ...view, features };
}

export function buildView(
  train: readonly Task[],
  weak: Float64Array,
  strong: Float64Array,
): SelectorTaskView {
  const view = taskViewFromTasks(train);
  return { ...view, features: { ...view.features, weak_pass_rate: weak, strong_pass_rate: strong } };
}

/**
 * A step's updates: one on `rows`, then the source's extra replay updates (each on a replay-only
 * batch as large as `rows`, until one comes back empty), then the source hears the step trained.
 */
export async function stepUpdates(
  rows: Experience[],
  step: number,
  source: BatchSource | undefined,
  train: (rows: Experience[]) => Promise<void>,
): Promise<void> {
  await train(rows);
  for (let k = 0; k < (source?.replayUpdates ?? 0) && source?.replayBatch; k++) {
    const extra = await source.replayBatch(step, rows.length);
    if (extra.length === 0) break;
    await train(extra);
  }
  await source?.trained(step);
}

/**
 * One run: `budget` null runs exactly `s.steps` updates (the baseline's full run); a number runs
 * until that many rollouts are spent (at most `s.maxSteps` steps; 0 evaluates the start only).
 * `view` is what the selector is given (the caller decides which columns, see lineup.ts).
 */
export async function runLearner(
  name: string,
  recipe: SelectorRecipe,
  view: SelectorTaskView,
  seed: number,
  inputs: LearnerInputs,
  s: LearnerSettings,
  budget: number | null = null,
  source?: BatchSource,
): Promise<LearningCurve> {
  const t0 = Date.now();
  const policy = await inputs.load({ sampleSeed: seed });
  const trainer = new PolicyGradientTrainer(policy, {
    lr: s.lr,
    beta2: 0.99,
    clipLow: 0.2,
    maxGradNorm: 1,
    ...source?.trainer,
  });
  const byId = new Map(inputs.train.map((t) => [t.id, t] as const));
  let oracle: OraclePassRateSelector | undefined;
  let selector: Selector;
  if ('oracle' in recipe) {
    oracle = new OraclePassRateSelector(seed, recipe.target);
    oracle.init(view);
    selector = oracle;
  } else selector = createSelector(recipe.config, view, seed);
  // The bench's rounds, unless a stage brings its own refilling (DAPO's over-sampling replaces them).
  const extra = buildStages(recipe.stages ?? [], seed, `${name}.stages`);
  for (const st of extra) st.init(view);
  const stages: PreRolloutStage[] = extra.some((st) => st.refills && st.candidates)
    ? extra
    : [new BenchRoundsStage(s.batchTasks), ...extra];
  let updates = 0;
  const evaluate = async (step: number, rollouts: number): Promise<CurvePoint> => {
    const r = await evaluateAccuracy(policy, inputs.heldout, { seed: 0 });
    const levels: Record<string, number> = {};
    for (const [g, v] of Object.entries(r.groups)) levels[g] = v.accuracy;
    return { step, updates, rollouts, accuracy: r.accuracy, levels };
  };
  const points: CurvePoint[] = [await evaluate(0, 0)];
  let rollouts = 0;
  const more = (step: number) =>
    budget === null ? step <= s.steps : rollouts < budget && step <= s.maxSteps;
  let mixed = 0;
  let groups = 0;
  const seen = new Set<string>();
  const picked: Record<string, number> = {};
  let trainedSamples = 0;
  let replayedSamples = 0;
  try {
    let step = 1;
    for (; more(step); step++) {
      if (oracle && (step - 1) % s.oracleEvery === 0)
        oracle.setPassRates(exactPassRates(policy, inputs.train));
      // Dynamic sampling: roll out rounds of tasks until the step has `trainGroups` groups with a
      // gradient (or `maxRounds` ran); the selector learns from each round before the next. Stages
      // (GRESO, SPEED, DAPO's over-sampling) and probes (DOTS) run inside the same staged step, and
      // every rollout they spend is counted.
      const samples = new Map<readonly number[], Generation[]>();
      let round = 0;
      const rollout = async (req: RolloutRequest): Promise<number[][]> => {
        const tasks = req.ids.map((id) => byId.get(id)!);
        if (req.phase === 'full' || req.phase === 'screen') {
          for (const t of tasks) {
            seen.add(t.id);
            const level = String(t.meta.domain);
            picked[level] = (picked[level] ?? 0) + 1;
          }
        }
        // The first request of a round keeps the seeds of the plain protocol (identical runs).
        const r = req.phase === 'probe' ? 1000 + round : req.phase === 'continue' ? 2000 + round : round++;
        const gens = await policy.generateBatch(
          tasks.map((t, k) => ({
            prompt: t.prompt!,
            n: req.rollouts,
            temperature: 1,
            seed: hashSeed(seed, step, r, k),
          })),
        );
        return tasks.map((task, k) => {
          const rewards: number[] = gens[k]!.map((g) => (g.text.trim() === task.answer ? 1 : 0));
          samples.set(rewards, gens[k]!);
          return rewards;
        });
      };
      const result = await runStagedStepAsync(
        selector,
        stages,
        { want: s.trainGroups, groupSize: s.repeat, maxRounds: s.maxRounds, step },
        rollout,
      );
      rollouts += result.rollouts;
      groups += result.fullGroups + result.screenedOut;
      mixed += result.mixedGroups;
      const batch: Experience[] = [];
      result.kept.forEach((g, i) => {
        const task = byId.get(g.taskId)!;
        const gens = g.pieces.flatMap((p) => samples.get(p) ?? []);
        batch.push(...groupExperiences(task, gens, g.rewards, `${step}-${i}`, step));
      });
      const trainOn = source ? await source.choose(batch, step) : batch;
      if (trainOn.length > 0) {
        await stepUpdates(trainOn, step, source, async (rows) => {
          await trainer.step(rows);
          updates++;
          trainedSamples += rows.length;
          replayedSamples += rows.filter((e) => (e.useCount ?? 0) > 1).length;
        });
      }
      if (step % s.every === 0) points.push(await evaluate(step, rollouts));
    }
    // The run's end is always evaluated (a budgeted run stops between the regular evaluations).
    if (points[points.length - 1]!.step !== step - 1) points.push(await evaluate(step - 1, rollouts));
  } finally {
    trainer.dispose();
    policy.dispose();
  }
  return {
    selector: name,
    seed,
    points,
    effective: groups > 0 ? mixed / groups : 0,
    rollouts,
    distinct: seen.size,
    picked,
    seconds: (Date.now() - t0) / 1000,
    trainedSamples,
    replayedSamples,
  };
}

/** A group's experiences with GRPO advantages; empty when its rewards are all equal (no gradient). */
function groupExperiences(
  task: Task,
  gens: readonly Generation[],
  rewards: readonly number[],
  groupId: string,
  step: number,
): Experience[] {
  const mean = rewards.reduce((a, b) => a + b, 0) / rewards.length;
  const sd = Math.sqrt(rewards.reduce((a, r) => a + (r - mean) ** 2, 0) / rewards.length);
  if (sd === 0) return [];
  return gens.map((g, j) => ({
    id: `${groupId}-${j}`,
    taskId: task.id,
    taskset: task.taskset,
    groupId,
    runIndex: j,
    stepIndex: 0,
    modelVersion: step - 1,
    exploreStep: step,
    prompt: task.prompt!,
    response: g.text,
    tokens: [...g.promptTokens, ...g.tokens],
    logprobs: g.logprobs,
    actionMask: [],
    promptLength: g.promptTokens.length,
    reward: rewards[j]!,
    advantage: (rewards[j]! - mean) / (sd + 1e-6),
    truncated: g.finishReason === 'length',
    info: {},
    useCount: 0,
    priority: 0,
    createdAt: 0,
    expert: false,
  }));
}
