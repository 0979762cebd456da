import type { z } from 'zod';
import { definePlugin, type PluginDefinition } from '../../core/plugin.ts';
import type { RolloutModel } from '../../models/rollout-model.ts';

/** What a model factory gets: where the config lives, the run's seed and folder. */
export interface ModelBuildContext {
  /** Folder relative paths in params resolve against (the config file's folder). */
  baseDir: string;
  seed: number;
  /** Config path of the slot, for errors (`explorer.model`). */
  path: string;
  file?: string | undefined;
}

/**
 * A built rollout model and what the run may do with it. A local trainable model (the tiny policy)
 * exposes the weights a trainer updates as `trainable`; `sync` then copies them into the copy the
 * explorer samples from and returns the version rollouts now carry.
 */
export interface ModelHandle {
  readonly rollout: RolloutModel;
  /** One line for the run log, e.g. `tiny policy (/abs/path)`. */
  readonly description: string;
  /** The weights a trainer may update, tagged with the model kind trainers check for. */
  readonly trainable?: { kind: string; policy: unknown };
  /** Make the trainer's latest weights (version `trainerVersion`) the ones rollouts use; returns the version served. */
  sync?(trainerVersion: number): Promise<number>;
  /** Save/load the explorer's own copy of the weights (it differs from the trainer's between syncs). */
  saveExplorer?(dir: string): Promise<void>;
  loadExplorer?(dir: string): Promise<void>;
  dispose?(): void;
}

export type ModelDefinition<P = unknown> = PluginDefinition<P, ModelBuildContext, ModelHandle>;

export function defineModel<S extends z.ZodType>(def: {
  name: string;
  description: string;
  params: S;
  create(params: z.output<S>, ctx: ModelBuildContext): ModelHandle | Promise<ModelHandle>;
}): ModelDefinition<z.output<S>> {
  return definePlugin(def);
}
