import type { Registry } from '../core/registry.ts';
import type { ModelDefinition } from '../explorer/models/model-definition.ts';
import type { TrainerDefinition } from '../trainer/trainer-definition.ts';
import { dpoTrainer } from './dpo-entry.ts';
import { policyGradientTrainer } from './policy-gradient-entry.ts';
import { tinyModel } from './tiny-model.ts';

/**
 * Adds the tiny policy's rollout model (`tiny`) and trainers (`policy_gradient`, `dpo`) to a run's
 * registries. tiny/ sits above explorer/ and trainer/, so it registers itself from here rather than
 * being listed by their registries. Loads no TensorFlow.js: each `create` imports it when called.
 */
export function registerTinyParts(registries: {
  models: Registry<ModelDefinition>;
  trainers: Registry<TrainerDefinition>;
}): void {
  registries.models.register(tinyModel as ModelDefinition);
  for (const def of [policyGradientTrainer, dpoTrainer])
    registries.trainers.register(def as TrainerDefinition);
}
