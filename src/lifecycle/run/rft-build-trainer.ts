import { ConfigError } from '../../core/errors.ts';
import { resolvePlugin } from '../../core/plugin.ts';
import type { Trainer } from '../../trainer/trainer.ts';
import type { Monitor } from './monitors/monitor.ts';
import type { RftBuildContext } from './rft-build-context.ts';
import type { RolloutParts } from './rft-build-explorer.ts';
import type { RftConfig } from './rft-config.ts';

/** The run's trainer (none in explore and bench modes), checked against weight sync. */
export async function buildTrainer(
  config: RftConfig,
  c: RftBuildContext,
  rollout: RolloutParts,
): Promise<{ trainer: Trainer | null; label: string }> {
  if (config.lifecycle.mode === 'explore' || config.lifecycle.mode === 'bench')
    return { trainer: null, label: 'none' };
  const tr = await resolvePlugin(config.trainer, c.reg.trainers, c.at('trainer'));
  const trainer = await tr.def.create(tr.params, {
    trainable: rollout.model.trainable ?? null,
    baseDir: c.baseDir,
    runDir: c.runDir,
    seed: c.seed,
    path: 'trainer',
    file: c.file,
  });
  // Weight sync loads the checkpoints a trainer names as servable; a trainer that names none
  // (export, the in-process ones) would leave the server on its base weights for the whole run.
  if (rollout.weightSync && trainer.servable === undefined)
    throw new ConfigError({
      path: 'explorer.weightSync',
      ...(c.file ? { file: c.file } : {}),
      message: `trainer '${trainer.name}' writes no checkpoints a model server can load, so weight sync would never load anything`,
      hint: 'use trainer type external (its step replies name a checkpoint), or remove explorer.weightSync',
    });
  return { trainer, label: tr.label };
}

/** The run's monitors, in config order. */
export async function buildMonitors(config: RftConfig, c: RftBuildContext): Promise<Monitor[]> {
  const monitors: Monitor[] = [];
  for (let i = 0; i < config.monitors.length; i++) {
    const mo = await resolvePlugin(config.monitors[i], c.reg.monitors, c.at(`monitors[${i}]`));
    monitors.push(
      await mo.def.create(mo.params, {
        runDir: c.runDir,
        runId: c.runId,
        baseDir: c.baseDir,
        path: `monitors[${i}]`,
      }),
    );
  }
  return monitors;
}
