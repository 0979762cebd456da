import { removerRegistry } from '../../buffer/removers/registry.ts';
import type { RemoverDefinition } from '../../buffer/removers/remover.ts';
import { samplerRegistry } from '../../buffer/samplers/registry.ts';
import type { SamplerDefinition } from '../../buffer/samplers/sampler.ts';
import { strategyRegistry } from '../../buffer/strategies/registry.ts';
import type { StrategyDefinition } from '../../buffer/strategies/strategy.ts';
import type { Registry } from '../../core/registry.ts';
import type { ModelDefinition } from '../../explorer/models/model-definition.ts';
import { modelRegistry } from '../../explorer/models/registry.ts';
import type { RewardDefinition } from '../../explorer/rewards/definition.ts';
import { rewardRegistry } from '../../explorer/rewards/registry.ts';
import { type WorkflowDefinition, workflowRegistry } from '../../explorer/workflows/registry.ts';
import { type ExperienceOperatorDefinition, experienceOperatorRegistry } from '../../operators/registries.ts';
import { type SelectorDefinition, selectorRegistry } from '../../selectors/registry.ts';
import { type StageDefinition, stageRegistry } from '../../selectors/stages/registry.ts';
import { registerTinyParts } from '../../tiny/register.ts';
import { trainerRegistry } from '../../trainer/registry.ts';
import type { TrainerDefinition } from '../../trainer/trainer-definition.ts';
import { monitorRegistry } from './monitors/builtin.ts';
import type { MonitorDefinition } from './monitors/monitor.ts';

/**
 * Every registry an RFT config can name. The run-config schema is built from these, so a plug-in
 * registered here is validated (params and all) with the rest of the config, before anything runs.
 */
export interface RunRegistries {
  selectors: Registry<SelectorDefinition>;
  samplers: Registry<SamplerDefinition>;
  removers: Registry<RemoverDefinition>;
  strategies: Registry<StrategyDefinition>;
  stages: Registry<StageDefinition>;
  models: Registry<ModelDefinition>;
  workflows: Registry<WorkflowDefinition>;
  rewards: Registry<RewardDefinition>;
  experienceOps: Registry<ExperienceOperatorDefinition>;
  trainers: Registry<TrainerDefinition>;
  monitors: Registry<MonitorDefinition>;
}

/**
 * Fresh registries holding the built-ins. Every run (and every server) makes its own: a plug-in a
 * caller registers on one set is seen by that run only; no registry is shared across the process.
 */
export function defaultRegistries(): RunRegistries {
  const registries: RunRegistries = {
    selectors: selectorRegistry(),
    samplers: samplerRegistry(),
    removers: removerRegistry(),
    strategies: strategyRegistry(),
    stages: stageRegistry(),
    models: modelRegistry(),
    workflows: workflowRegistry(),
    rewards: rewardRegistry(),
    experienceOps: experienceOperatorRegistry(),
    trainers: trainerRegistry(),
    monitors: monitorRegistry(),
  };
  registerTinyParts(registries);
  return registries;
}
