import { resolve } from 'node:path';
import type { Experience } from '../../core/experience.ts';
import { resolvePlugin } from '../../core/plugin.ts';
import type { RejectedInput } from '../../core/rejected.ts';
import type { Task } from '../../core/task.ts';
import { OperatorGraph } from '../../operators/graph.ts';
import { buildGraph } from '../../operators/graph-spec.ts';
import { buildParsedSelector } from '../../selectors/registry.ts';
import { buildStages, withStages } from '../../selectors/stages/index.ts';
import { taskViewFromTasks } from '../../selectors/task-view.ts';
import type { Selector } from '../../selectors/types.ts';
import type { RejectedStore } from '../../store/rejected-store.ts';
import type { Trainer } from '../../trainer/trainer.ts';
import { benchCheckpointsIn } from './drivers/bench.ts';
import { FilterRefillStage, filterRefillOf } from './filter-refill.ts';
import type { Monitor } from './monitors/monitor.ts';
import type { RftBuildContext } from './rft-build-context.ts';
import { buildExplorers, buildRollout, type RolloutParts, type RunExplorers } from './rft-build-explorer.ts';
import { loadRunTasks, type RunTasks } from './rft-build-tasks.ts';
import { buildMonitors, buildTrainer } from './rft-build-trainer.ts';
import type { RftConfig } from './rft-config.ts';
import type { RftParts, RunBuffer } from './rft-parts.ts';
import { openRunBuffer, planRunBuffer } from './run-buffer.ts';
import type { RunRegistries } from './run-registries.ts';
import { defaultRegistries } from './run-registries.ts';

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
 * Build every part of a run from its (parsed) config, one builder per part, in this order: tasks,
 * selector, rollout (reward, workflow, model, weight sync), explorers, experience operators,
 * trainer, monitors, buffer plan. Reads only: a config that fails here has changed nothing on disk.
 * User modules named in the config are imported and their params checked.
 */
export async function prepareRft(config: RftConfig, opts: BuildRftOptions): Promise<PreparedRft> {
  const c = buildContext(opts);
  const bufferTable = opts.bufferTable ?? config.buffer.table ?? `${opts.runId}_experiences`;
  const loaded = await loadRunTasks(config, c);
  const selector = await buildSelector(config, c, loaded.tasks);
  const allTasks = [...loaded.tasks, ...loaded.heldout, ...loaded.evalTasks.flat()];
  const rollout = await buildRollout(config, c, allTasks);
  const explorers = buildExplorers(config, c, rollout, loaded.evalTasks);
  const experienceGraph = await buildExperienceGraph(config, c);
  const trainer = await buildTrainer(config, c, rollout);
  const monitors = await buildMonitors(config, c);
  if (config.lifecycle.mode === 'bench' && config.lifecycle.benchCheckpoints !== undefined)
    benchCheckpointsIn(resolve(opts.baseDir, config.lifecycle.benchCheckpoints), {
      canLoadWeights: rollout.model.loadExplorer !== undefined,
    });
  const bufferPlan = await planRunBuffer({
    buffer: config.buffer,
    table: bufferTable,
    sampling: config.sampling,
    seed: opts.seed,
    runId: opts.runId,
    registries: c.reg,
    baseDir: opts.baseDir,
    file: c.file,
  });
  const describe: Record<string, string> = {
    model: rollout.model.description,
    selector: selector.label,
    workflow: rollout.labels.workflow,
    reward: rollout.labels.reward,
    trainer: trainer.label,
    ...(rollout.weightSync ? { weightSync: rollout.weightSync.label } : {}),
    mode: config.lifecycle.mode,
    buffer: `table '${bufferTable}', sampler ${bufferPlan.samplerLabel}`,
  };
  const e = config.explorer;
  return {
    rejected: loaded.rejected,
    monitors,
    openBuffer: () =>
      openRunBuffer({
        dbDir: opts.dbDir,
        runDir: opts.runDir,
        plan: bufferPlan,
        registries: c.reg,
        batchSize: config.lifecycle.trainBatch ?? e.batchTasks * e.repeat,
      }),
    parts: runParts({
      loaded,
      selector: selector.selector,
      rollout,
      explorers,
      experienceGraph,
      trainer: trainer.trainer,
      describe,
    }),
  };
}

function buildContext(opts: BuildRftOptions): RftBuildContext {
  const file = opts.configFile;
  return {
    baseDir: opts.baseDir,
    file,
    dbDir: opts.dbDir,
    runDir: opts.runDir,
    runId: opts.runId,
    seed: opts.seed,
    reg: opts.registries ?? defaultRegistries(),
    at: (path) => ({ baseDir: opts.baseDir, path, file }),
  };
}

/** The selector (nested selectors from the run's registry), its pre-rollout stages, given the tasks. */
async function buildSelector(
  config: RftConfig,
  c: RftBuildContext,
  tasks: Task[],
): Promise<{ selector: Selector; label: string }> {
  const sel = await resolvePlugin(config.selector, c.reg.selectors, c.at('selector'));
  const stages = buildStages(
    config.explorer.stages.flatMap((s) => ('type' in s ? [s] : [])),
    c.seed,
    'explorer.stages',
    c.reg.stages,
  );
  // A refilling reward_std_filter draws rounds like dapo_ds, unless a stage already refills.
  const refill = filterRefillOf(config);
  if (refill && !stages.some((s) => s.refills)) stages.push(new FilterRefillStage(refill));
  const selector = withStages(
    buildParsedSelector(config.selector, c.seed, 'selector', c.reg.selectors, sel),
    stages,
  );
  selector.init(taskViewFromTasks(tasks));
  return { selector, label: sel.label };
}

/** The experience operators, as a graph (their params were parsed at the door). */
async function buildExperienceGraph(
  config: RftConfig,
  c: RftBuildContext,
): Promise<OperatorGraph<Experience>> {
  return new OperatorGraph<Experience>(
    await buildGraph<Experience>(config.experienceOps, {
      registry: c.reg.experienceOps,
      baseDir: c.baseDir,
      path: 'experienceOps',
      ...(c.file ? { file: c.file } : {}),
    }),
    { seed: c.seed, runId: c.runId, baseDir: c.baseDir },
  );
}

/** The parts the run loop drives, over what the builders made. */
function runParts(p: {
  loaded: RunTasks;
  selector: Selector;
  rollout: RolloutParts;
  explorers: RunExplorers;
  experienceGraph: OperatorGraph<Experience>;
  trainer: Trainer | null;
  describe: Record<string, string>;
}): Omit<RftParts, 'buffer'> {
  const { model, weightSync } = p.rollout;
  const { trainer } = p;
  const { evaluator, evalSets, faults } = p.explorers;
  return {
    tasks: p.loaded.tasks,
    heldout: p.loaded.heldout,
    ...(evalSets.length > 0 ? { evalSets } : {}),
    selector: p.selector,
    explorer: p.explorers.explorer,
    experienceGraph: p.experienceGraph,
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
    ...(!weightSync && model.saveExplorer ? { saveExplorer: (dir: string) => model.saveExplorer!(dir) } : {}),
    ...(!weightSync && model.loadExplorer ? { loadExplorer: (dir: string) => model.loadExplorer!(dir) } : {}),
    ...(faults ? { faults: faults.counts } : {}),
    describe: p.describe,
    dispose() {
      trainer?.dispose?.();
      model.dispose?.();
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
