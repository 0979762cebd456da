import type { Message } from '../core/task.ts';

/** What the explorer asks a rollout model for: `n` samples of one prompt (or chat). */
export interface GenerateRequest {
  prompt?: string;
  messages?: Message[];
  /** Number of samples (the GRPO group size when called once per task). */
  n: number;
  maxTokens?: number;
  temperature?: number;
  /** Per-request seed, for models that honour one (the tiny policy always does). */
  seed?: number;
  signal?: AbortSignal;
  /** Tools the model may call, in the OpenAI chat `tools` format (models without tool calling ignore them). */
  tools?: ToolSpec[];
}

/** One tool offered to the model: the OpenAI chat `tools` entry (parameters as JSON Schema). */
export interface ToolSpec {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

/**
 * A tool call as the model wrote it. `arguments` is the raw JSON text (not yet checked); `problem`
 * says why the call could not be read at all (no name, arguments not a string).
 */
export interface GeneratedToolCall {
  id: string;
  name: string;
  arguments: string;
  problem?: string;
}

/** One sampled completion. Token ids and logprobs are empty when the model does not return them. */
export interface Generation {
  text: string;
  /** Token ids of the prompt as the model saw it (empty when unknown). */
  promptTokens: number[];
  /** Token ids of the completion. */
  tokens: number[];
  /** Log-probability of each completion token under the sampling policy (same length as `tokens`, or empty). */
  logprobs: number[];
  finishReason: 'stop' | 'length';
  /** Why the token ids are unknown when the model could not supply them (reported when the rollout is quarantined). */
  tokenProblem?: string;
  /** Tool calls of a chat completion (`message.tool_calls`); absent when there are none. */
  toolCalls?: GeneratedToolCall[];
}

/** Anything that can produce completions: an OpenAI-compatible server, the built-in tiny policy, a test double. */
export interface RolloutModel {
  readonly name: string;
  generate(request: GenerateRequest): Promise<Generation[]>;
  /**
   * Optional: many requests in one call (results in request order). Local models implement it so a
   * whole explorer step is one batched forward pass per position; the explorer uses it when present.
   */
  generateBatch?(requests: readonly GenerateRequest[]): Promise<Generation[][]>;
}
