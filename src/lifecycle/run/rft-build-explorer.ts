import { resolvePlugin } from '../../core/plugin.ts';
import { hashSeed } from '../../core/rng.ts';
import type { Task } from '../../core/task.ts';
import { Explorer } from '../../explorer/explorer.ts';
import { FaultyModel, faultyReward } from '../../explorer/faults.ts';
import type { ModelHandle } from '../../explorer/models/model-definition.ts';
import { adaptRewardExport } from '../../explorer/rewards/module-reward.ts';
import type { RewardFn } from '../../explorer/rewards/reward-fn.ts';
import type { Workflow } from '../../explorer/workflow.ts';
import { adaptWorkflow } from '../../explorer/workflows/registry.ts';
import type { RolloutModel } from '../../models/rollout-model.ts';
import { createWeightSync } from '../../models/weight-sync/create.ts';
import type { WeightSync } from '../../models/weight-sync/weight-sync.ts';
import { rowReward, rowWorkflow } from '../pipeline/row-overrides.ts';
import { type EvalSet, evalSet } from './evaluation/eval-sets.ts';
import type { RftBuildContext } from './rft-build-context.ts';
import type { RftConfig } from './rft-config.ts';

/** What a rollout is made of: the reward, the workflow, the model and (for a served model) weight sync. */
export interface RolloutParts {
  reward: RewardFn;
  workflow: Workflow;
  model: ModelHandle;
  weightSync: WeightSync | null;
  labels: { reward: string; workflow: string };
}

/**
 * Resolve and build the explorer's slots. `tasks` are every task the run may roll out: their
 * per-row overrides (explorer.rewardKey / workflowKey) are checked against the registries now.
 */
export async function buildRollout(
  config: RftConfig,
  c: RftBuildContext,
  tasks: readonly Task[],
): Promise<RolloutParts> {
  const where = c.file ? { file: c.file } : {};
  const rw = await resolvePlugin(config.explorer.reward, c.reg.rewards, {
    ...c.at('explorer.reward'),
    adapt: (e) => adaptRewardExport(e, 'explorer.reward'),
  });
  const configuredReward: RewardFn = await rw.def.create(rw.params, {
    baseDir: c.baseDir,
    path: 'explorer.reward.params',
    ...where,
  });
  const reward = await rowReward(
    tasks,
    config.explorer.rewardKey,
    { fn: configuredReward, type: rw.label },
    c.reg.rewards,
    c.at(''),
  );
  const wf = await resolvePlugin(config.explorer.workflow, c.reg.workflows, {
    ...c.at('explorer.workflow'),
    adapt: adaptWorkflow,
  });
  const configuredWorkflow = await wf.def.create(wf.params, {
    baseDir: c.baseDir,
    path: 'explorer.workflow',
  });
  const workflow = await rowWorkflow(
    tasks,
    config.explorer.workflowKey,
    configuredWorkflow,
    c.reg.workflows,
    c.at(''),
  );
  const md = await resolvePlugin(config.explorer.model, c.reg.models, c.at('explorer.model'));
  const model: ModelHandle = await md.def.create(md.params, {
    baseDir: c.baseDir,
    seed: c.seed,
    path: 'explorer.model',
    file: c.file,
  });
  const weightSync = config.explorer.weightSync
    ? createWeightSync(config.explorer.weightSync, {
        model: model.rollout,
        runId: c.runId,
        baseDir: c.baseDir,
        path: 'explorer.weightSync',
        file: c.file,
      })
    : null;
  return { reward, workflow, model, weightSync, labels: { reward: rw.label, workflow: wf.label } };
}

export interface RunExplorers {
  /** Rolls out the selected tasks (through the fault injector when `explorer.faults` is set). */
  explorer: Explorer;
  /** Held-out accuracy: greedy, one sample per task, the real model. */
  evaluator: Explorer;
  evalSets: EvalSet[];
  faults: FaultyModel | null;
}

/** The explorers of a run: the one that rolls out, the held-out evaluator, one per evaluation set. */
export function buildExplorers(
  config: RftConfig,
  c: RftBuildContext,
  parts: RolloutParts,
  evalTasks: readonly Task[][],
): RunExplorers {
  const { model, reward, weightSync } = parts;
  let rollout: RolloutModel = model.rollout;
  let explorerReward = reward;
  let faults: FaultyModel | null = null;
  if (config.explorer.faults) {
    const f = { ...config.explorer.faults, seed: c.seed };
    faults = new FaultyModel(model.rollout, f);
    rollout = faults;
    explorerReward = faultyReward(reward, f, faults.counts);
  }
  const e = config.explorer;
  const explorerOptions = {
    workflow: parts.workflow,
    reward: explorerReward,
    repeat: e.repeat,
    maxTokens: e.maxTokens,
    temperature: e.temperature,
    concurrency: e.concurrency,
    timeoutMs: e.timeoutMs,
    retries: e.retries,
    backoffMs: e.backoffMs,
    seed: c.seed,
  };
  const explorer = new Explorer({ ...explorerOptions, model: rollout });
  // Evaluation: greedy, one sample per task, the real model (never the fault injector).
  const evaluator = new Explorer({
    ...explorerOptions,
    model: model.rollout,
    reward,
    repeat: 1,
    temperature: 0,
    retries: 1,
  });
  // Evaluation sets: n (default k) samples per task at the set's temperature, with a seed of the set's own.
  const evalSets = (config.evaluation?.sets ?? []).map((s, i) =>
    evalSet(
      s,
      evalTasks[i]!,
      new Explorer({
        ...explorerOptions,
        model: model.rollout,
        reward,
        repeat: s.n ?? s.k,
        temperature: s.temperature ?? e.temperature,
        retries: 1,
        seed: hashSeed(c.seed, 'eval', s.name),
      }),
      weightSync ? () => weightSync.serve(weightSync.newest) : undefined,
    ),
  );
  return { explorer, evaluator, evalSets, faults };
}
