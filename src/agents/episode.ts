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

/** The token arrays of the whole conversation so far (the response layout of token-alignment.ts). */
interface TokenLog {
  tokens: number[];
  mask: number[];
  logprobs: number[];
  promptLength: number;
  logprobsKnown: boolean;
  truncated: boolean;
  tokenProblem: string | undefined;
  lastTokens: number[];
}

type Generated = Awaited<ReturnType<RolloutModel['generate']>>[number];

/** The system prompt (with the text-format tool descriptions) and the environment's first observation. */
async function openingMessages(
  env: Environment,
  task: Task,
  opts: EpisodeOptions,
  tools: NonNullable<Environment['tools']>,
): Promise<TrajectoryMessage[]> {
  const first = checkObservation(await env.reset(task, opts.seed), opts.environment);
  const system = [
    opts.systemPrompt,
    opts.toolCallFormat === 'text' && tools.length > 0 ? describeToolsForText(tools) : undefined,
  ].filter((s): s is string => s !== undefined && s !== '');
  return [
    ...(system.length > 0 ? [{ role: 'system' as const, content: system.join('\n\n') }] : []),
    { role: 'user', content: first },
  ];
}

/** One model turn within the episode's wall-clock budget; 'time_budget' when the budget ran out. */
async function generateTurn(
  model: RolloutModel,
  messages: readonly TrajectoryMessage[],
  opts: EpisodeOptions,
  specs: ReturnType<typeof toolSpecOf>[],
  turn: number,
  tokenRoom: number,
  deadline: number,
): Promise<Generated | 'time_budget'> {
  const msLeft = deadline - Date.now();
  if (msLeft <= 0) return 'time_budget';
  const budget = AbortSignal.timeout(msLeft);
  let generated: Generated[];
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
    if (budget.aborted && !opts.signal?.aborted) return 'time_budget';
    throw err;
  }
  const g = generated[0];
  if (!g) throw new Error(`model returned no completion for turn ${turn}`);
  return g;
}

/** Append a model turn to the token arrays; returns where its own tokens start in the response. */
function appendTurnTokens(log: TokenLog, g: Generated): number {
  // The prompt the model saw extends what we already hold: only the new part is environment text.
  const fresh =
    g.promptTokens.length >= log.tokens.length ? g.promptTokens.slice(log.tokens.length) : g.promptTokens;
  if (log.promptLength < 0) log.promptLength = fresh.length;
  else
    for (let k = 0; k < fresh.length; k++) {
      log.logprobs.push(0);
      log.mask.push(0);
    }
  log.tokens.push(...fresh);
  const spanStart = log.tokens.length - log.promptLength;
  log.tokens.push(...g.tokens);
  log.mask.push(...g.tokens.map(() => 1));
  if (g.logprobs.length !== g.tokens.length) log.logprobsKnown = false;
  log.logprobs.push(...(g.logprobs.length === g.tokens.length ? g.logprobs : g.tokens.map(() => 0)));
  log.tokenProblem ??= g.tokenProblem;
  log.lastTokens = g.tokens;
  log.truncated ||= g.finishReason === 'length';
  return spanStart;
}

/** The step's tool results as `tool` messages, counted; returns how many were invalid. */
function recordToolResults(
  messages: TrajectoryMessage[],
  counts: CallCounts,
  result: ReturnType<typeof checkStepResult>,
): number {
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
  return invalid;
}

/**
 * The model's turn as an assistant message, the environment's step on it, its tool results and
 * observation as messages; returns the turn's record and how many calls the model made.
 */
async function stepEnvironment(
  env: Environment,
  opts: EpisodeOptions,
  g: Generated,
  turn: number,
  spanStart: number,
  messages: TrajectoryMessage[],
  counts: CallCounts,
): Promise<{ record: Turn; calls: number }> {
  const calls = opts.toolCallFormat === 'native' ? (g.toolCalls ?? []) : parseTextToolCalls(g.text, turn);
  const messageStart = messages.length;
  messages.push({
    role: 'assistant',
    content: g.text,
    ...(calls.length > 0 ? { tool_calls: toolCallMessages(calls) } : {}),
  });
  const result = checkStepResult(await env.step({ text: g.text, toolCalls: calls }), opts.environment, turn);
  const invalid = recordToolResults(messages, counts, result);
  // An environment may read plain text as a call (calculator_choice): its results count as calls too.
  const callCount = Math.max(calls.length, result.toolResults.length);
  counts.toolCalls += callCount;
  if (result.observation !== '' && !result.done) messages.push({ role: 'user', content: result.observation });
  const record: Turn = {
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
  };
  return { record, calls: calls.length };
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
  const messages = await openingMessages(env, task, opts, tools);
  const log: TokenLog = {
    tokens: [],
    mask: [],
    logprobs: [],
    promptLength: -1,
    logprobsKnown: true,
    truncated: false,
    tokenProblem: undefined,
    lastTokens: [],
  };
  const turns: Turn[] = [];
  const counts = emptyCounts();
  let finalAnswer = '';
  let stopReason: StopReason = 'max_turns';

  for (let turn = 0; turn < opts.maxTurns; turn++) {
    const tokenRoom = opts.maxTrajectoryTokens - log.tokens.length;
    if (tokenRoom <= 0) {
      stopReason = 'max_tokens';
      break;
    }
    const g = await generateTurn(model, messages, opts, specs, turn, tokenRoom, deadline);
    if (g === 'time_budget') {
      stopReason = 'time_budget';
      break;
    }
    const spanStart = appendTurnTokens(log, g);

    const step = await stepEnvironment(env, opts, g, turn, spanStart, messages, counts);
    turns.push(step.record);
    if (step.calls === 0) finalAnswer = g.text;
    if (step.record.done) {
      stopReason = 'done';
      break;
    }
  }
  return {
    trajectory: { environment: opts.environment, messages, turns, counts, stopReason, finalAnswer },
    tokens: log.tokens,
    promptLength: Math.max(0, log.promptLength),
    logprobs: log.logprobsKnown ? log.logprobs : [],
    actionMask: log.mask,
    truncated: log.truncated,
    ...(log.tokenProblem ? { tokenProblem: log.tokenProblem } : {}),
    lastTokens: log.lastTokens,
  };
}
