import { z } from 'zod';
import type { JsonValue, Task } from '../core/task.ts';
import type { ToolSpec } from '../models/rollout-model.ts';

/** What a tool sees besides its arguments: the episode's task, and a signal that fires on its timeout. */
export interface ToolContext {
  task: Task;
  signal: AbortSignal;
}

/**
 * A typed tool: its arguments are checked against `args` (zod) before `run` is called, so `run`
 * only ever sees valid input. A thrown error becomes a `tool_error` observation, never a crash.
 */
export interface Tool<A = unknown> {
  readonly name: string;
  readonly description: string;
  readonly args: z.ZodType<A>;
  run(args: A, ctx: ToolContext): JsonValue | Promise<JsonValue>;
}

/** Keeps a tool's argument type flowing into `run` without annotations. */
export function defineTool<S extends z.ZodType>(tool: {
  name: string;
  description: string;
  args: S;
  run(args: z.output<S>, ctx: ToolContext): JsonValue | Promise<JsonValue>;
}): Tool<z.output<S>> {
  return tool as Tool<z.output<S>>;
}

/** The OpenAI chat `tools` entry for a tool: its argument schema as JSON Schema. */
export function toolSpecOf(tool: Tool): ToolSpec {
  const schema = z.toJSONSchema(tool.args, { io: 'input', unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
  delete schema.$schema;
  return {
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: schema },
  };
}

/** Tool output as the text of a `tool` message: strings as they are, anything else as JSON. */
export function toolOutputText(value: JsonValue): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}
