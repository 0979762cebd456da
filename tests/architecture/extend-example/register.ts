import type { Registry } from '../../../src/core/registry.ts';
import type { RunRegistries } from '../../../src/lifecycle/run/run-registries.ts';
import type { TaskOperatorDefinition } from '../../../src/operators/registries.ts';
import { rewardFirstSampler } from './reward-first-sampler.ts';
import { strideSelector } from './stride-selector.ts';
import { trimTextOp } from './trim-text-op.ts';

/** A run's registries (and a task pipeline's operators) with the three example plug-ins: one line each. */
export function registerExamples(run: RunRegistries, operators: Registry<TaskOperatorDefinition>): void {
  run.samplers.register(rewardFirstSampler);
  operators.register(trimTextOp as TaskOperatorDefinition);
  run.selectors.register(strideSelector);
}
