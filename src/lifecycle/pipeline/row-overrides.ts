import { ConfigError } from '../../core/errors.ts';
import { resolvePlugin } from '../../core/plugin.ts';
import type { Registry } from '../../core/registry.ts';
import { closestNames } from '../../core/suggest.ts';
import type { Task } from '../../core/task.ts';
import type { RewardDefinition } from '../../explorer/rewards/definition.ts';
import type { RewardFn } from '../../explorer/rewards/reward-fn.ts';
import type { Workflow } from '../../explorer/workflow.ts';
import type { WorkflowDefinition } from '../../explorer/workflows/registry.ts';

/**
 * Per-row reward and workflow overrides (Trinity-RFT's `reward_fn_key` / `workflow_key`): the
 * config names a task `meta` key (`explorer.rewardKey`, `explorer.workflowKey`) whose value, on
 * each task that has it, names a registered reward or workflow for that task; tasks without it use
 * the configured default. Every name the task set uses is checked at the door, before the run
 * starts: an unknown name (or a non-text value) is a one-line error naming the task and its row.
 * Named overrides are built with their default params; a row naming the default's own type gets
 * the default as configured.
 */

interface Where {
  baseDir: string;
  file?: string | undefined;
}

/** Distinct override names used by the tasks, each with the first task that uses it. */
function namesUsed(
  tasks: readonly Task[],
  key: string,
  path: string,
  registry: Registry<{ readonly name: string }>,
  file: string | undefined,
): Map<string, Task> {
  const used = new Map<string, Task>();
  for (const t of tasks) {
    const v = t.meta[key];
    if (v === undefined || v === null || v === '') continue;
    const where = `task '${t.id}'${t.source ? ` (${t.source.file} row ${t.source.row})` : ''}`;
    if (typeof v !== 'string')
      throw new ConfigError({
        path,
        ...(file ? { file } : {}),
        message: `${where} has meta.${key} = ${JSON.stringify(v).slice(0, 60)}; expected the name of a ${registry.what}`,
      });
    if (!registry.has(v)) {
      const near = closestNames(v, registry.names());
      throw new ConfigError({
        path,
        ...(file ? { file } : {}),
        message: `${where} names ${registry.what} '${v}' in meta.${key}, which is not registered`,
        hint:
          near.length > 0
            ? `did you mean ${near.map((n) => `'${n}'`).join(', ')}?`
            : `known: ${registry.names().join(', ')}`,
      });
    }
    if (!used.has(v)) used.set(v, t);
  }
  return used;
}

/** The reward the explorer calls: the row's named reward, else the default. */
export async function rowReward(
  tasks: readonly Task[],
  key: string | undefined,
  fallback: { fn: RewardFn; type: string | undefined },
  registry: Registry<RewardDefinition>,
  at: Where,
): Promise<RewardFn> {
  if (key === undefined) return fallback.fn;
  const path = 'explorer.rewardKey';
  const byName = new Map<string, RewardFn>();
  for (const name of namesUsed(tasks, key, path, registry, at.file).keys()) {
    if (name === fallback.type) byName.set(name, fallback.fn);
    else {
      const r = await resolvePlugin(name, registry, {
        baseDir: at.baseDir,
        path: `${path} '${name}'`,
        file: at.file,
      });
      byName.set(
        name,
        await r.def.create(r.params, { baseDir: at.baseDir, path: `${path} '${name}'`, file: at.file }),
      );
    }
  }
  return async (ctx) => {
    const v = ctx.task.meta[key];
    const fn = typeof v === 'string' ? byName.get(v) : undefined;
    const out = await (fn ?? fallback.fn)(ctx);
    return { ...out, info: { ...out.info, reward_fn: fn ? (v as string) : (fallback.type ?? 'default') } };
  };
}

/** The workflow the explorer runs: the row's named workflow, else the default. */
export async function rowWorkflow(
  tasks: readonly Task[],
  key: string | undefined,
  fallback: Workflow,
  registry: Registry<WorkflowDefinition>,
  at: Where,
): Promise<Workflow> {
  if (key === undefined) return fallback;
  const path = 'explorer.workflowKey';
  const byName = new Map<string, Workflow>();
  for (const name of namesUsed(tasks, key, path, registry, at.file).keys()) {
    if (name === fallback.name) byName.set(name, fallback);
    else {
      const r = await resolvePlugin(name, registry, {
        baseDir: at.baseDir,
        path: `${path} '${name}'`,
        file: at.file,
      });
      byName.set(name, await r.def.create(r.params, { baseDir: at.baseDir, path: `${path} '${name}'` }));
    }
  }
  const pick = (task: Task): Workflow => {
    const v = task.meta[key];
    return (typeof v === 'string' ? byName.get(v) : undefined) ?? fallback;
  };
  const all = [fallback, ...byName.values()];
  const batched = all.every((w) => w.prepare !== undefined && w.finish !== undefined);
  return {
    name: `${fallback.name} (per row: meta.${key})`,
    run: (task, model, ctx) => pick(task).run(task, model, ctx),
    // Batched generation only when every workflow in use supports it.
    ...(batched
      ? {
          prepare: (task, ctx) => pick(task).prepare!(task, ctx),
          finish: (task, gens, ctx) => pick(task).finish!(task, gens, ctx),
        }
      : {}),
  };
}
