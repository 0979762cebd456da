import { z } from 'zod';
import { DataError } from '../core/errors.ts';
import { definePlugin, type PluginDefinition } from '../core/plugin.ts';
import { type JsonObject, JsonObjectSchema, type Task } from '../core/task.ts';
import type { GeneratedToolCall } from '../models/rollout-model.ts';
import type { Tool } from './tool.ts';
import { type ToolOutcome, ToolOutcomeSchema } from './tool-call-runner.ts';

/** What the model did in one turn: its text and the tool calls it made (possibly none). */
export interface AgentAction {
  text: string;
  toolCalls: GeneratedToolCall[];
}

/**
 * What the environment answers to an action. `toolResults` become `tool` messages (one per call,
 * in call order); a non-empty `observation` becomes the next `user` message. `reward` is this
 * step's reward; `done` ends the episode.
 */
export const StepResultSchema = z.strictObject({
  observation: z.string().default(''),
  toolResults: z.array(ToolOutcomeSchema).default([]),
  reward: z.number().refine(Number.isFinite, 'reward must be a finite number'),
  done: z.boolean(),
  info: JsonObjectSchema.default({}),
});
export type StepResult = z.output<typeof StepResultSchema>;
export type StepResultInput = z.input<typeof StepResultSchema>;

/**
 * An environment an agent acts in, one instance per episode: `reset` starts the episode for a
 * task (deterministically from `seed`) and returns the first observation; `step` answers each
 * action; `close` frees what the episode held. `tools` are offered to the model in every request.
 */
export interface Environment {
  readonly tools?: readonly Tool[];
  reset(task: Task, seed: number): string | Promise<string>;
  step(action: AgentAction): StepResultInput | Promise<StepResultInput>;
  close?(): void | Promise<void>;
}

/** What an environment's factory gets besides its params. */
export interface EnvironmentContext {
  /** Folder relative paths in params resolve against (the config file's). */
  baseDir: string;
}

/** A registered environment: `create` makes a fresh instance for each episode. */
export type EnvironmentDefinition<P = unknown> = PluginDefinition<P, EnvironmentContext, Environment>;

/** Keeps the params type flowing into `create` (what a user module exports). */
export function defineEnvironment<S extends z.ZodType>(def: {
  name: string;
  description: string;
  params: S;
  create(params: z.output<S>, ctx: EnvironmentContext): Environment | Promise<Environment>;
}): EnvironmentDefinition<z.output<S>> {
  return definePlugin(def);
}

/** A step result checked at the boundary: a user environment that answers badly is named, not trusted. */
export function checkStepResult(value: unknown, env: string, turn: number): StepResult {
  const parsed = StepResultSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const i = parsed.error.issues[0]!;
  throw new DataError({
    message: `environment '${env}' step ${turn} returned a bad result: ${i.path.join('.') || 'result'}: ${i.message}`,
  });
}

/** A reset observation checked at the boundary. */
export function checkObservation(value: unknown, env: string): string {
  if (typeof value === 'string') return value;
  throw new DataError({ message: `environment '${env}' reset returned ${typeof value}, expected a string` });
}

export type { JsonObject, ToolOutcome };
