import { type PluginConfig, pluginSlotSchema, resolvePlugin } from '../core/plugin.ts';
import { Registry } from '../core/registry.ts';
import { calculatorChoiceEnvironment } from './calculator-choice-environment.ts';
import type { EnvironmentDefinition } from './environment.ts';
import { guessNumberEnvironment } from './guess-number-environment.ts';
import { toolEnvironment } from './tool-environment.ts';

/** Environments by config name (`environment: tools`), plus any registered on the returned registry. */
export function environmentRegistry(): Registry<EnvironmentDefinition> {
  const reg = new Registry<EnvironmentDefinition>('environment');
  reg.register(toolEnvironment as EnvironmentDefinition);
  reg.register(guessNumberEnvironment as EnvironmentDefinition);
  reg.register(calculatorChoiceEnvironment as EnvironmentDefinition);
  return reg;
}

/** The config slot of an environment: a name, `{ type, params }`, or `{ module, export, params }`. */
export function environmentSlotSchema(reg: Registry<EnvironmentDefinition> = environmentRegistry()) {
  return pluginSlotSchema(reg);
}

/** A resolved environment: its definition, checked params and a label for records. */
export interface ResolvedEnvironment {
  def: EnvironmentDefinition;
  params: unknown;
  label: string;
}

/** Resolve a parsed slot (user modules imported relative to `baseDir`); errors name `path`. */
export async function resolveEnvironment(
  slot: PluginConfig,
  ctx: { baseDir: string; path: string; registry?: Registry<EnvironmentDefinition> },
): Promise<ResolvedEnvironment> {
  const r = await resolvePlugin(slot, ctx.registry ?? environmentRegistry(), {
    baseDir: ctx.baseDir,
    path: ctx.path,
  });
  return { def: r.def, params: r.params, label: r.label };
}
