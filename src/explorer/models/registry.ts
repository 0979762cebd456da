import { Registry } from '../../core/registry.ts';
import type { ModelDefinition } from './model-definition.ts';
import { openaiModel } from './openai-model.ts';

/**
 * Rollout models by config name (`explorer.model: { type: openai, params: {…} }`). The tiny policy
 * registers itself from src/tiny (registerTinyParts).
 */
export function modelRegistry(): Registry<ModelDefinition> {
  const reg = new Registry<ModelDefinition>('rollout model');
  for (const def of [openaiModel]) reg.register(def as ModelDefinition);
  return reg;
}
