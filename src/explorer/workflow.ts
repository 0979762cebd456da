import type { Experience } from '../core/experience.ts';
import type { Rng } from '../core/rng.ts';
import type { Task } from '../core/task.ts';
import type { GenerateRequest, Generation, RolloutModel } from '../models/rollout-model.ts';
import type { RewardFn } from './rewards/reward-fn.ts';

/** Everything a workflow needs besides the task and the model. */
export interface WorkflowContext {
  /** Rollouts per task (the GRPO group size). */
  repeat: number;
  exploreStep: number;
  modelVersion: number;
  reward: RewardFn;
  maxTokens: number;
  temperature: number;
  /** Seed for this task's rollouts in this step (derived from run seed, step and task id). */
  seed: number;
  rng: Rng;
  signal?: AbortSignal;
}

/**
 * A workflow turns one task into a group of experiences by talking to a rollout model.
 * `prepare`/`finish` split single-turn work so the explorer can batch many tasks' generation
 * into one model call; multi-turn workflows only implement `run`.
 */
export interface Workflow {
  readonly name: string;
  run(task: Task, model: RolloutModel, ctx: WorkflowContext): Promise<Experience[]>;
  /** Optional batched path: the one request this task needs… */
  prepare?(task: Task, ctx: WorkflowContext): GenerateRequest;
  /** …and how its generations become experiences. */
  finish?(task: Task, generations: Generation[], ctx: WorkflowContext): Promise<Experience[]>;
}
