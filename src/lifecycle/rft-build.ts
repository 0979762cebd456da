import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { RejectedStore } from '../buffer/rejected-store.ts';
import { ConfigError } from '../core/errors.ts';
import type { Experience } from '../core/experience.ts';
import type { Task } from '../core/task.ts';
import { Explorer } from '../explorer/explorer.ts';
import { FaultyModel, faultyReward } from '../explorer/faults.ts';
import { createOpenAIRolloutModel } from '../explorer/openai/client.ts';
import { createReward } from '../explorer/rewards/registry.ts';
import type { RolloutModel } from '../explorer/rollout-model.ts';
import { currentBackend } from '../explorer/tiny/backend.ts';
import type { TinyPolicy } from '../explorer/tiny/policy.ts';
import { loadTinyPolicy, readTinyWeights, saveTinyPolicy } from '../explorer/tiny/weights-file.ts';
import { multiTurnWorkflow } from '../explorer/workflows/multi-turn.ts';
import { singleTurnWorkflow } from '../explorer/workflows/single-turn.ts';
import { OperatorGraph } from '../operators/graph.ts';
import { buildGraph } from '../operators/graph-spec.ts';
import { experienceOperatorRegistry } from '../operators/registries.ts';
import { createSelector } from '../selectors/registry.ts';
import { taskViewFromTasks } from '../selectors/task-view.ts';
import { ExportTrainer } from '../trainer/export-trainer.ts';
import { PolicyGradientTrainer, parsePolicyGradientConfig } from '../trainer/policy-gradient-trainer.ts';
import type { Trainer } from '../trainer/trainer.ts';
import type { RftConfig } from './rft-config.ts';
import type { RftParts } from './rft-parts.ts';
import { openRunBuffer } from './run-buffer.ts';
import { loadTaskSource } from './task-source.ts';

export interface BuildRftOptions {
  baseDir: string;
  configFile?: string;
  dbDir: string;
  runDir: string;
  runId: string;
  seed: number;
  rejected: RejectedStore;
  log?: (line: string) => void;
}

/** Build every part of a run from its config: tasks, selector, model, explorer, operators, buffer, trainer. */
export async function buildRftParts(config: RftConfig, opts: BuildRftOptions): Promise<RftParts> {
  const where = opts.configFile ? { file: opts.configFile } : {};
  const loaded = await loadTaskSource(config.tasks, {
    baseDir: opts.baseDir,
    dbDir: opts.dbDir,
    step: 'tasks',
  });
  if (loaded.rejected.length > 0) {
    opts.rejected.add(loaded.rejected.map((r) => ({ runId: opts.runId, ...r })));
    await opts.rejected.flush();
  }
  const tasks = loaded.tasks;
  if (tasks.length === 0)
    throw new ConfigError({ path: 'tasks', ...where, message: 'the task source holds no usable tasks' });
  let heldout: Task[] = [];
  if (config.heldout) {
    const h = await loadTaskSource(config.heldout.source, {
      baseDir: opts.baseDir,
      dbDir: opts.dbDir,
      step: 'heldout',
    });
    heldout = config.heldout.size !== undefined ? h.tasks.slice(0, config.heldout.size) : h.tasks;
  }

  const selector = createSelector(config.selector, taskViewFromTasks(tasks), opts.seed, 'selector');
  const reward = await createReward(config.explorer.reward, {
    baseDir: opts.baseDir,
    path: 'explorer.reward',
    ...where,
  });

  // The rollout model: the trainer updates `trainerPolicy`; the explorer samples from its own copy,
  // which `sync` refreshes — so between syncs the explorer really is off-policy.
  let rolloutModel: RolloutModel;
  let trainerPolicy: TinyPolicy | null = null;
  let explorerPolicy: TinyPolicy | null = null;
  const m = config.explorer.model;
  if (m.type === 'tiny') {
    trainerPolicy = await loadTinyPolicy(resolve(opts.baseDir, m.path), { sampleSeed: opts.seed });
    explorerPolicy = trainerPolicy.clone();
    rolloutModel = explorerPolicy;
  } else {
    rolloutModel = createOpenAIRolloutModel(m.params, { path: 'explorer.model.params', ...where });
  }

  let model: RolloutModel = rolloutModel;
  let explorerReward = reward;
  let faults: FaultyModel | null = null;
  if (config.explorer.faults) {
    const f = { ...config.explorer.faults, seed: opts.seed };
    faults = new FaultyModel(rolloutModel, f);
    model = faults;
    explorerReward = faultyReward(reward, f, faults.counts);
  }

  const explorerOptions = {
    workflow: config.explorer.workflow === 'multi_turn' ? multiTurnWorkflow : singleTurnWorkflow,
    reward: explorerReward,
    repeat: config.explorer.repeat,
    maxTokens: config.explorer.maxTokens,
    temperature: config.explorer.temperature,
    concurrency: config.explorer.concurrency,
    timeoutMs: config.explorer.timeoutMs,
    retries: config.explorer.retries,
    backoffMs: config.explorer.backoffMs,
    seed: opts.seed,
  };
  const explorer = new Explorer({ ...explorerOptions, model });
  // Evaluation: greedy, one sample per task, the real model (never the fault injector).
  const evaluator = new Explorer({
    ...explorerOptions,
    model: rolloutModel,
    reward,
    repeat: 1,
    temperature: 0,
    retries: 1,
  });

  const experienceGraph = new OperatorGraph<Experience>(
    await buildGraph<Experience>(config.experienceOps, {
      registry: experienceOperatorRegistry(),
      baseDir: opts.baseDir,
      path: 'experienceOps',
      ...where,
    }),
    { seed: opts.seed, runId: opts.runId },
  );

  let trainer: Trainer | null = null;
  const trainerType = config.lifecycle.mode === 'explore' ? 'none' : config.trainer.type;
  if (trainerType === 'policy_gradient') {
    if (!trainerPolicy) {
      throw new ConfigError({
        path: 'trainer.type',
        ...where,
        message:
          "policy_gradient trains the built-in tiny policy; with an external model use trainer type 'export'",
      });
    }
    trainer = new PolicyGradientTrainer(
      trainerPolicy,
      parsePolicyGradientConfig(config.trainer.params, 'trainer.params'),
    );
  } else if (trainerType === 'export') {
    const dir =
      typeof config.trainer.params.dir === 'string'
        ? resolve(opts.baseDir, config.trainer.params.dir)
        : join(opts.runDir, 'export');
    mkdirSync(dir, { recursive: true });
    trainer = new ExportTrainer({ ...config.trainer.params, dir });
  } else if (trainerType !== 'none') {
    throw new ConfigError({
      path: 'trainer.type',
      ...where,
      message: `unknown trainer '${trainerType}'`,
      hint: "expected 'policy_gradient', 'export' or 'none'",
    });
  }

  const buffer = await openRunBuffer({
    dbDir: opts.dbDir,
    runDir: opts.runDir,
    runId: opts.runId,
    seed: opts.seed,
    buffer: config.buffer,
    sampling: config.sampling,
    batchSize: config.lifecycle.trainBatch ?? config.explorer.batchTasks * config.explorer.repeat,
    ...where,
  });

  const backend = await currentBackend();
  return {
    tasks,
    heldout,
    selector,
    explorer,
    experienceGraph,
    buffer,
    trainer,
    async sync() {
      if (explorerPolicy && trainerPolicy) explorerPolicy.setWeights(trainerPolicy.getWeights());
      return trainer?.version ?? 0;
    },
    async evaluate(list) {
      if (list.length === 0) return Number.NaN;
      const r = await evaluator.explore(list, 0, 0);
      const rewards = r.experiences.map((e) => (Number.isFinite(e.reward) ? e.reward : 0));
      // Failed rollouts count as wrong: accuracy is over all held-out tasks.
      return rewards.reduce((a, b) => a + b, 0) / list.length;
    },
    ...(explorerPolicy
      ? {
          saveExplorer: async (dir: string) => {
            await saveTinyPolicy(explorerPolicy!, dir);
          },
          loadExplorer: async (dir: string) => {
            explorerPolicy!.setWeights((await readTinyWeights(dir)).values);
          },
        }
      : {}),
    ...(faults ? { faults: faults.counts } : {}),
    describe: {
      model:
        m.type === 'tiny'
          ? `tiny policy (${resolve(opts.baseDir, m.path)})`
          : `OpenAI-compatible (${rolloutModel.name})`,
      backend: backend ? `${backend.backend}` : 'none (no tensor work)',
      selector: config.selector.type,
      trainer: trainerType,
      mode: config.lifecycle.mode,
    },
    dispose() {
      trainer?.dispose?.();
      explorerPolicy?.dispose?.();
      trainerPolicy?.dispose?.();
    },
  };
}
