import type { Experience } from '../core/experience.ts';
import { Registry } from '../core/registry.ts';
import type { Task } from '../core/task.ts';
import { experienceOperators } from './experience/index.ts';
import type { OperatorDefinition } from './operator.ts';
import { embeddingTaskOperators, llmTaskOperators, taskOperators } from './task/index.ts';
import { perplexityFilterOp } from './task/perplexity-filter.ts';

export type TaskOperatorDefinition = OperatorDefinition<Task, unknown>;
export type ExperienceOperatorDefinition = OperatorDefinition<Experience, unknown>;

/** A fresh registry holding the built-in task operators; register your own on it. */
export function taskOperatorRegistry(): Registry<TaskOperatorDefinition> {
  const reg = new Registry<TaskOperatorDefinition>('task operator');
  for (const def of taskOperators) reg.register(def as TaskOperatorDefinition);
  for (const def of llmTaskOperators) reg.register(def as TaskOperatorDefinition);
  for (const def of embeddingTaskOperators) reg.register(def as TaskOperatorDefinition);
  reg.register(perplexityFilterOp as TaskOperatorDefinition);
  return reg;
}

/** A fresh registry holding the built-in experience operators (advantages, group filters, shaping). */
export function experienceOperatorRegistry(): Registry<ExperienceOperatorDefinition> {
  const reg = new Registry<ExperienceOperatorDefinition>('experience operator');
  for (const def of experienceOperators) reg.register(def as ExperienceOperatorDefinition);
  return reg;
}
