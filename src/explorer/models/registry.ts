import { Registry } from '../../core/registry.ts';
import type { ModelDefinition } from './model-definition.ts';
import { openaiModel } from './openai-model.ts';
import { tinyModel } from './tiny-model.ts';

/** Rollout models by config name (`explorer.model: { type: openai, params: {…} }`). */
export function modelRegistry(): Registry<ModelDefinition> {
  const reg = new Registry<ModelDefinition>('rollout model');
  for (const def of [openaiModel, tinyModel]) reg.register(def as ModelDefinition);
  return reg;
}
