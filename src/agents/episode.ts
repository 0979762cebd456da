import type { Message, Task } from '../core/task.ts';
import type { GeneratedToolCall, RolloutModel } from '../models/rollout-model.ts';
import { checkObservation, checkStepResult, type Environment } from './environment.ts';
import { describeToolsForText, parseTextToolCalls } from './text-tool-calls.ts';
import { toolSpecOf } from './tool.ts';
import {
  type CallCounts,
  emptyCounts,
  type StopReason,
  type Trajectory,
  type TrajectoryMessage,
  type Turn,
} from './trajectory.ts';

/** Limits and sampling settings of one episode. */
export interface EpisodeOptions {
  /** Environment label for the record (`tools`, `module:./env.ts#Env`). */
  environment: string;
  maxTurns: number;
  /** All tokens of the trajectory (prompt, model turns, observations) together. */
  maxTrajectoryTokens: number;
  /** Wall-clock budget of the episode. */
  episodeTimeoutMs: number;
  /** `native`: tools go in the request and calls come back as `tool_calls`; `text`: `<tool_call>` blocks. */
  toolCallFormat: 'native' | 'text';
  systemPrompt?: string | undefined;
  maxTokens: number;
  temperature: number;
  seed: number;
  signal?: AbortSignal | undefined;
}

/** An episode: its trajectory and the per-token arrays of the whole conversation (response layout). */
export interface Episode {
  trajectory: Trajectory;
  tokens: number[];
  promptLength: number;
  /** Empty when some model turn came without logprobs (an invented 0 would claim probability 1). */
  logprobs: number[];
  actionMask: number[];
  truncated: boolean;
  tokenProblem?: string;
  /** Token ids of the last model turn (for token-aware rewards). */
  lastTokens: number[];
}

const FAILURE_COUNT_KEY = {
  malformed: 'malformed',
  unknown_tool: 'unknownTool',
  invalid_arguments: 'invalidArguments',
  tool_error: 'toolError',
  timeout: 'timeout',
} as const satisfies Record<string, keyof CallCounts>;

/** The model's view of a message: OpenAI chat fields only. */
function asRequestMessage(m: TrajectoryMessage): Message {
  return m as Message;
}

function toolCallMessages(calls: readonly GeneratedToolCall[]): NonNullable<TrajectoryMessage['tool_calls']> {
  return calls.map((c) => ({
    id: c.id,
    type: 'function',
    function: { name: c.name, arguments: c.arguments },
  }));
}

/**
 * Run one episode: reset the environment, then alternate model turns and environment steps until
 * the environment says done or a limit is hit (turns, trajectory tokens, wall clock). The token
 * arrays follow the one layout of src/core/token-alignment.ts: the first prompt is the prompt part;
 * each later observation's tokens are masked out (0), the model's own tokens masked in (1).
 */
export async function runEpisode(
  env: Environment,
  task: Task,
  model: RolloutModel,
  opts: EpisodeOptions,
): Promise<Episode> {
  const tools = env.tools ?? [];
  const specs = tools.map(toolSpecOf);
  const deadline = Date.now() + opts.episodeTimeoutMs;
  const first = checkObservation(await env.reset(task, opts.seed), opts.environment);
  const system = [
    opts.systemPrompt,
    opts.toolCallFormat === 'text' && tools.length > 0 ? describeToolsForText(tools) : undefined,
  ].filter((s): s is string => s !== undefined && s !== '');
  const messages: TrajectoryMessage[] = [
    ...(system.length > 0 ? [{ role: 'system' as const, content: system.join('\n\n') }] : []),
    { role: 'user', content: first },
  ];
  const tokens: number[] = [];
  const mask: number[] = [];
  const logprobs: number[] = [];
  const turns: Turn[] = [];
  const counts = emptyCounts();
  let promptLength = -1;
  let logprobsKnown = true;
  let truncated = false;
  let tokenProblem: string | undefined;
  let lastTokens: number[] = [];
  let finalAnswer = '';
  let stopReason: StopReason = 'max_turns';

  for (let turn = 0; turn < opts.maxTurns; turn++) {
    const tokenRoom = opts.maxTrajectoryTokens - tokens.length;
    if (tokenRoom <= 0) {
      stopReason = 'max_tokens';
      break;
    }
    const msLeft = deadline - Date.now();
    if (msLeft <= 0) {
      stopReason = 'time_budget';
      break;
    }
    const budget = AbortSignal.timeout(msLeft);
    let generated: Awaited<ReturnType<RolloutModel['generate']>>;
    try {
      generated = await model.generate({
        messages: messages.map(asRequestMessage),
        n: 1,
        maxTokens: Math.min(opts.maxTokens, tokenRoom),
        temperature: opts.temperature,
        seed: (opts.seed + turn * 104729) >>> 0,
        signal: opts.signal ? AbortSignal.any([opts.signal, budget]) : budget,
        ...(opts.toolCallFormat === 'native' && specs.length > 0 ? { tools: specs } : {}),
      });
    } catch (err) {
      if (budget.aborted && !opts.signal?.aborted) {
        stopReason = 'time_budget';
        break;
      }
      throw err;
    }
    const g = generated[0];
    if (!g) throw new Error(`model returned no completion for turn ${turn}`);
    // The prompt the model saw extends what we already hold: only the new part is environment text.
    const fresh =
      g.promptTokens.length >= tokens.length ? g.promptTokens.slice(tokens.length) : g.promptTokens;
    if (promptLength < 0) promptLength = fresh.length;
    else
      for (let k = 0; k < fresh.length; k++) {
        logprobs.push(0);
        mask.push(0);
      }
    tokens.push(...fresh);
    const spanStart = tokens.length - promptLength;
    tokens.push(...g.tokens);
    mask.push(...g.tokens.map(() => 1));
    if (g.logprobs.length !== g.tokens.length) logprobsKnown = false;
    logprobs.push(...(g.logprobs.length === g.tokens.length ? g.logprobs : g.tokens.map(() => 0)));
    tokenProblem ??= g.tokenProblem;
    lastTokens = g.tokens;
    truncated ||= g.finishReason === 'length';

    const calls = opts.toolCallFormat === 'native' ? (g.toolCalls ?? []) : parseTextToolCalls(g.text, turn);
    const messageStart = messages.length;
    messages.push({
      role: 'assistant',
      content: g.text,
      ...(calls.length > 0 ? { tool_calls: toolCallMessages(calls) } : {}),
    });
    const result = checkStepResult(
      await env.step({ text: g.text, toolCalls: calls }),
      opts.environment,
      turn,
    );
    let invalid = 0;
    for (const r of result.toolResults) {
      messages.push({ role: 'tool', content: r.content, tool_call_id: r.callId });
      if (r.ok) counts.validCalls++;
      else {
        invalid++;
        counts.invalidCalls++;
        if (r.failure) counts[FAILURE_COUNT_KEY[r.failure]]++;
      }
    }
    // An environment may read plain text as a call (calculator_choice): its results count as calls too.
    const callCount = Math.max(calls.length, result.toolResults.length);
    counts.toolCalls += callCount;
    if (result.observation !== '' && !result.done)
      messages.push({ role: 'user', content: result.observation });
    turns.push({
      index: turn,
      reward: result.reward,
      done: result.done,
      tokenSpan: [spanStart, spanStart + g.tokens.length],
      messageSpan: [messageStart, messages.length],
      toolCalls: callCount,
      invalidCalls: invalid,
      truncated: g.finishReason === 'length',
      info: {
        ...result.info,
        ...(result.done && result.observation !== '' ? { observation: result.observation } : {}),
      },
    });
    if (calls.length === 0) finalAnswer = g.text;
    if (result.done) {
      stopReason = 'done';
      break;
    }
  }
  return {
    trajectory: { environment: opts.environment, messages, turns, counts, stopReason, finalAnswer },
    tokens,
    promptLength: Math.max(0, promptLength),
    logprobs: logprobsKnown ? logprobs : [],
    actionMask: mask,
    truncated,
    ...(tokenProblem ? { tokenProblem } : {}),
    lastTokens,
  };
}
