import { resolve } from 'node:path';
import type { RejectedStore } from '../buffer/rejected-store.ts';
import { ConfigError } from '../core/errors.ts';
import type { Experience } from '../core/experience.ts';
import { resolvePlugin } from '../core/plugin.ts';
import type { RejectedInput } from '../core/rejected.ts';
import { hashSeed } from '../core/rng.ts';
import type { Task } from '../core/task.ts';
import { Explorer } from '../explorer/explorer.ts';
import { FaultyModel, faultyReward } from '../explorer/faults.ts';
import type { ModelHandle } from '../explorer/models/model-definition.ts';
import { adaptRewardExport } from '../explorer/rewards/module-reward.ts';
import type { RewardFn } from '../explorer/rewards/reward-fn.ts';
import type { RolloutModel } from '../explorer/rollout-model.ts';
import { adaptWorkflow } from '../explorer/workflows/registry.ts';
import { createWeightSync } from '../models/weight-sync/create.ts';
import { OperatorGraph } from '../operators/graph.ts';
import { buildGraph } from '../operators/graph-spec.ts';
import { buildParsedSelector } from '../selectors/registry.ts';
import { buildStages, withStages } from '../selectors/stages/index.ts';
import { taskViewFromTasks } from '../selectors/task-view.ts';
import type { Selector } from '../selectors/types.ts';
import type { Trainer } from '../trainer/trainer.ts';
import { evalSet, loadEvalSetTasks } from './evaluation/eval-sets.ts';
import type { Monitor } from './monitors/monitor.ts';
import type { RftConfig } from './rft-config.ts';
import type { RftParts, RunBuffer } from './rft-parts.ts';
import { rowReward, rowWorkflow } from './row-overrides.ts';
import { benchCheckpointsIn, NOTHING_TO_BENCH } from './run/drivers/bench.ts';
import { openRunBuffer, planRunBuffer } from './run-buffer.ts';
import type { RunRegistries } from './run-registries.ts';
import { defaultRegistries } from './run-registries.ts';
import { loadTaskSource } from './task-source.ts';

export interface BuildRftOptions {
  baseDir: string;
  configFile?: string | undefined;
  dbDir: string;
  runDir: string;
  runId: string;
  /** The run's buffer table (default: the config's, else `<runId>_experiences`). */
  bufferTable?: string;
  seed: number;
  registries?: RunRegistries;
  log?: (line: string) => void;
}

/** Every part of a run, built and checked — but nothing written yet. `open` is the first act. */
export interface PreparedRft {
  parts: Omit<RftParts, 'buffer'>;
  monitors: Monitor[];
  /** Rows the task sources could not use; recorded in `rejected` once the run starts. */
  rejected: RejectedInput[];
  /** Open (creating if needed) the run's buffer tables: call only once the start is validated. */
  openBuffer(): Promise<RunBuffer>;
}

/**
 * Build every part of a run from its (parsed) config: tasks, selector, model, workflow, reward,
 * explorer, experience operators, trainer, monitors. Reads only: a config that fails here has
 * changed nothing on disk. User modules named in the config are imported and their params checked.
 */
export async function prepareRft(config: RftConfig, opts: BuildRftOptions): Promise<PreparedRft> {
  const reg = opts.registries ?? defaultRegistries();
  const file = opts.configFile;
  const bufferTable = opts.bufferTable ?? config.buffer.table ?? `${opts.runId}_experiences`;
  const at = (path: string) => ({ baseDir: opts.baseDir, path, file });
  const loaded = await loadTaskSource(config.tasks, { ...at('tasks'), dbDir: opts.dbDir, step: 'tasks' });
  const rejected = loaded.rejected.map((r) => ({ runId: opts.runId, ...r }));
  const tasks = loaded.tasks;
  if (tasks.length === 0 && config.lifecycle.mode !== 'train' && config.lifecycle.mode !== 'bench')
    throw new ConfigError({
      path: 'tasks',
      ...(file ? { file } : {}),
      message: `the task source holds no usable tasks (${loaded.rejected.length} row(s) rejected)`,
      hint: 'check the mapping against the file’s columns: winnow inspect shows what was rejected',
    });
  let heldout: Task[] = [];
  if (config.heldout) {
    const h = await loadTaskSource(config.heldout.source, {
      ...at('heldout.source'),
      dbDir: opts.dbDir,
      step: 'heldout',
    });
    heldout = config.heldout.size !== undefined ? h.tasks.slice(0, config.heldout.size) : h.tasks;
  }
  const evalConfigs = config.evaluation?.sets ?? [];
  const evalLoaded = await loadEvalSetTasks(
    evalConfigs,
    (source, a) => loadTaskSource(source, { ...at(a.path), dbDir: opts.dbDir, step: a.step }),
    file,
  );
  rejected.push(...evalLoaded.rejected.map((r) => ({ runId: opts.runId, ...r })));
  if (config.lifecycle.mode === 'bench' && heldout.length === 0 && evalConfigs.length === 0)
    throw new ConfigError({ ...NOTHING_TO_BENCH, ...(file ? { file } : {}) });

  if (config.lifecycle.mode === 'bench' && config.lifecycle.benchCheckpoints !== undefined) {
    // Checked now (a bad folder fails before anything is written); the driver reads the resolved path.
    benchCheckpointsIn(resolve(opts.baseDir, config.lifecycle.benchCheckpoints), { canLoadWeights: true });
  }
  const sel = await resolvePlugin(config.selector, reg.selectors, at('selector'));
  const selector: Selector = withStages(
    buildParsedSelector(config.selector, opts.seed, 'selector', reg.selectors, sel),
    buildStages(
      config.explorer.stages.flatMap((s) => ('type' in s ? [s] : [])),
      opts.seed,
      'explorer.stages',
      reg.stages,
    ),
  );
  selector.init(taskViewFromTasks(tasks));

  const rw = await resolvePlugin(config.explorer.reward, reg.rewards, {
    ...at('explorer.reward'),
    adapt: (e) => adaptRewardExport(e, 'explorer.reward'),
  });
  const configuredReward: RewardFn = await rw.def.create(rw.params, {
    baseDir: opts.baseDir,
    path: 'explorer.reward.params',
    ...(file ? { file } : {}),
  });
  // Per-row overrides (explorer.rewardKey / workflowKey): names checked against the registries now.
  const allTasks = [...tasks, ...heldout, ...evalLoaded.tasks.flat()];
  const reward = await rowReward(
    allTasks,
    config.explorer.rewardKey,
    { fn: configuredReward, type: rw.label },
    reg.rewards,
    at(''),
  );

  const wf = await resolvePlugin(config.explorer.workflow, reg.workflows, {
    ...at('explorer.workflow'),
    adapt: adaptWorkflow,
  });
  const configuredWorkflow = await wf.def.create(wf.params, {
    baseDir: opts.baseDir,
    path: 'explorer.workflow',
  });
  const workflow = await rowWorkflow(
    allTasks,
    config.explorer.workflowKey,
    configuredWorkflow,
    reg.workflows,
    at(''),
  );

  const md = await resolvePlugin(config.explorer.model, reg.models, at('explorer.model'));
  const model: ModelHandle = await md.def.create(md.params, {
    baseDir: opts.baseDir,
    seed: opts.seed,
    path: 'explorer.model',
    file,
  });

  const weightSync = config.explorer.weightSync
    ? createWeightSync(config.explorer.weightSync, {
        model: model.rollout,
        runId: opts.runId,
        baseDir: opts.baseDir,
        path: 'explorer.weightSync',
        file,
      })
    : null;

  let rollout: RolloutModel = model.rollout;
  let explorerReward = reward;
  let faults: FaultyModel | null = null;
  if (config.explorer.faults) {
    const f = { ...config.explorer.faults, seed: opts.seed };
    faults = new FaultyModel(model.rollout, f);
    rollout = faults;
    explorerReward = faultyReward(reward, f, faults.counts);
  }
  const e = config.explorer;
  const explorerOptions = {
    workflow,
    reward: explorerReward,
    repeat: e.repeat,
    maxTokens: e.maxTokens,
    temperature: e.temperature,
    concurrency: e.concurrency,
    timeoutMs: e.timeoutMs,
    retries: e.retries,
    backoffMs: e.backoffMs,
    seed: opts.seed,
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
  // Evaluation sets: k samples per task at the set's temperature, with a seed of the set's own.
  const evalSets = evalConfigs.map((s, i) =>
    evalSet(
      s,
      evalLoaded.tasks[i]!,
      new Explorer({
        ...explorerOptions,
        model: model.rollout,
        reward,
        repeat: s.k,
        temperature: s.temperature ?? e.temperature,
        retries: 1,
        seed: hashSeed(opts.seed, 'eval', s.name),
      }),
      weightSync ? () => weightSync.serve(weightSync.newest) : undefined,
    ),
  );

  const experienceGraph = new OperatorGraph<Experience>(
    await buildGraph<Experience>(config.experienceOps, {
      registry: reg.experienceOps,
      baseDir: opts.baseDir,
      path: 'experienceOps',
      ...(file ? { file } : {}),
    }),
    { seed: opts.seed, runId: opts.runId, baseDir: opts.baseDir },
  );

  let trainer: Trainer | null = null;
  const needsTrainer = config.lifecycle.mode !== 'explore' && config.lifecycle.mode !== 'bench';
  let trainerLabel = 'none';
  if (needsTrainer) {
    const tr = await resolvePlugin(config.trainer, reg.trainers, at('trainer'));
    trainer = await tr.def.create(tr.params, {
      trainable: model.trainable ?? null,
      baseDir: opts.baseDir,
      runDir: opts.runDir,
      seed: opts.seed,
      path: 'trainer',
      file,
    });
    trainerLabel = tr.label;
    // Weight sync loads the checkpoints a trainer names as servable; a trainer that names none
    // (export, the in-process ones) would leave the server on its base weights for the whole run.
    if (weightSync && trainer.servable === undefined)
      throw new ConfigError({
        path: 'explorer.weightSync',
        ...(file ? { file } : {}),
        message: `trainer '${trainer.name}' writes no checkpoints a model server can load, so weight sync would never load anything`,
        hint: 'use trainer type external (its step replies name a checkpoint), or remove explorer.weightSync',
      });
  }

  const monitors: Monitor[] = [];
  for (let i = 0; i < config.monitors.length; i++) {
    const mo = await resolvePlugin(config.monitors[i], reg.monitors, at(`monitors[${i}]`));
    monitors.push(
      await mo.def.create(mo.params, {
        runDir: opts.runDir,
        runId: opts.runId,
        baseDir: opts.baseDir,
        path: `monitors[${i}]`,
      }),
    );
  }

  if (config.lifecycle.mode === 'bench' && config.lifecycle.benchCheckpoints !== undefined)
    benchCheckpointsIn(resolve(opts.baseDir, config.lifecycle.benchCheckpoints), {
      canLoadWeights: model.loadExplorer !== undefined,
    });
  const bufferPlan = await planRunBuffer({
    buffer: config.buffer,
    table: bufferTable,
    sampling: config.sampling,
    seed: opts.seed,
    runId: opts.runId,
    registries: reg,
    baseDir: opts.baseDir,
    file,
  });
  const describe: Record<string, string> = {
    model: model.description,
    selector: sel.label,
    workflow: wf.label,
    reward: rw.label,
    trainer: trainerLabel,
    ...(weightSync ? { weightSync: weightSync.label } : {}),
    mode: config.lifecycle.mode,
    buffer: `table '${bufferTable}', sampler ${bufferPlan.samplerLabel}`,
  };
  return {
    rejected,
    monitors,
    openBuffer: () =>
      openRunBuffer({
        dbDir: opts.dbDir,
        runDir: opts.runDir,
        plan: bufferPlan,
        registries: reg,
        batchSize: config.lifecycle.trainBatch ?? e.batchTasks * e.repeat,
      }),
    parts: {
      tasks,
      heldout,
      ...(evalSets.length > 0 ? { evalSets } : {}),
      selector,
      explorer,
      experienceGraph,
      trainer,
      async sync() {
        // A served model changes only through weight sync: without it, rollouts stay version 0.
        if (weightSync) return weightSync.sync(trainer?.servable);
        const version = trainer?.version ?? 0;
        return model.sync ? model.sync(version) : model.trainable ? version : 0;
      },
      ...(weightSync ? { serve: (version: number) => weightSync.serve(version) } : {}),
      async evaluate(list) {
        if (list.length === 0) return Number.NaN;
        // Held-out accuracy of the newest synced weights, as for in-process models.
        if (weightSync) await weightSync.serve(weightSync.newest);
        const r = await evaluator.explore(list, 0, 0);
        const rewards = r.experiences.map((x) => (Number.isFinite(x.reward) ? x.reward : 0));
        // Failed rollouts count as wrong: accuracy is over all held-out tasks.
        return rewards.reduce((a, b) => a + b, 0) / list.length;
      },
      ...(weightSync
        ? {
            saveExplorer: (dir: string) => weightSync.save(dir),
            loadExplorer: (dir: string) => weightSync.load(dir),
          }
        : {}),
      ...(!weightSync && model.saveExplorer
        ? { saveExplorer: (dir: string) => model.saveExplorer!(dir) }
        : {}),
      ...(!weightSync && model.loadExplorer
        ? { loadExplorer: (dir: string) => model.loadExplorer!(dir) }
        : {}),
      ...(faults ? { faults: faults.counts } : {}),
      describe,
      dispose() {
        trainer?.dispose?.();
        model.dispose?.();
      },
    },
  };
}

/**
 * Build every part and open the buffer: for code that drives `runRftLoop` itself (tests, custom
 * loops). Task-source rejections go to `rejected`. `runRft` prepares first and opens only once the
 * start is validated.
 */
export async function buildRftParts(
  config: RftConfig,
  opts: BuildRftOptions & { rejected: RejectedStore },
): Promise<RftParts> {
  const prepared = await prepareRft(config, opts);
  if (prepared.rejected.length > 0) {
    opts.rejected.add(prepared.rejected);
    await opts.rejected.flush();
  }
  return { ...prepared.parts, buffer: await prepared.openBuffer() };
}

/** The tiny-policy path of a config, resolved (for logs and tests). */
export function tinyModelPath(config: RftConfig, baseDir: string): string | null {
  const m = config.explorer.model;
  return 'type' in m && m.type === 'tiny' && typeof m.params.path === 'string'
    ? resolve(baseDir, m.params.path)
    : null;
}
