import type { z } from 'zod';
import { definePlugin, type PluginDefinition } from '../core/plugin.ts';
import type { Trainer } from './trainer.ts';

/** What a trainer factory gets from the run. */
export interface TrainerBuildContext {
  /** The rollout model's trainable weights, if it has any (`{ kind: 'tiny', policy }` for the tiny policy). */
  trainable: { kind: string; policy: unknown } | null;
  /** Folder relative paths in params resolve against (the config file's folder). */
  baseDir: string;
  /** The run's own folder (exports default to a folder inside it). */
  runDir: string;
  seed: number;
  /** Config path of the slot, for errors (`trainer`). */
  path: string;
  file?: string | undefined;
}

export type TrainerDefinition<P = unknown> = PluginDefinition<P, TrainerBuildContext, Trainer>;

export function defineTrainer<S extends z.ZodType>(def: {
  name: string;
  description: string;
  params: S;
  create(params: z.output<S>, ctx: TrainerBuildContext): Trainer | Promise<Trainer>;
}): TrainerDefinition<z.output<S>> {
  return definePlugin(def);
}
