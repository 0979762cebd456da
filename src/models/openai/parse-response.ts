import { z } from 'zod';
import type { GeneratedToolCall, Generation } from '../rollout-model.ts';

/** A generation plus the token strings the server reported (useful when it does not send token ids). */
export interface OpenAIGeneration extends Generation {
  tokenTexts: string[];
}

/** Why a 2xx body could not be used: no choices at all, or a shape we cannot read. */
export class ResponseShapeError extends Error {
  readonly kind: 'malformed' | 'empty';
  constructor(kind: 'malformed' | 'empty', message: string) {
    super(message);
    this.kind = kind;
  }
}

const TokenIds = z.array(z.number().int()).nullable().optional();

const ChatChoice = z
  .object({
    index: z.number().int().optional(),
    message: z
      .object({
        content: z.string().nullable().optional(),
        // Read entry by entry (readToolCalls): one malformed call must not make the whole answer unreadable.
        tool_calls: z.array(z.unknown()).nullable().optional(),
      })
      .loose(),
    finish_reason: z.string().nullable().optional(),
    logprobs: z
      .object({
        content: z
          .array(z.object({ token: z.string(), logprob: z.number().nullable() }).loose())
          .nullable()
          .optional(),
      })
      .loose()
      .nullable()
      .optional(),
    token_ids: TokenIds,
    prompt_token_ids: TokenIds,
  })
  .loose();

const CompletionChoice = z
  .object({
    index: z.number().int().optional(),
    text: z.string(),
    finish_reason: z.string().nullable().optional(),
    logprobs: z
      .object({
        tokens: z.array(z.string()).nullable().optional(),
        token_logprobs: z.array(z.number().nullable()).nullable().optional(),
      })
      .loose()
      .nullable()
      .optional(),
    token_ids: TokenIds,
    prompt_token_ids: TokenIds,
  })
  .loose();

const Body = <C extends z.ZodType>(choice: C) =>
  z.object({ choices: z.array(choice), prompt_token_ids: TokenIds }).loose();

const ChatBody = Body(ChatChoice);
const CompletionBody = Body(CompletionChoice);

/** vLLM's `return_tokens_as_token_ids` renders tokens as `token_id:123`. */
function idsFromTokenTexts(texts: readonly string[]): number[] {
  const ids: number[] = [];
  for (const t of texts) {
    const m = /^token_id:(\d+)$/.exec(t);
    if (!m) return [];
    ids.push(Number(m[1]));
  }
  return ids;
}

function finish(reason: string | null | undefined): 'stop' | 'length' {
  return reason === 'length' ? 'length' : 'stop';
}

function checkShape(json: unknown): void {
  if (json === null || typeof json !== 'object' || Array.isArray(json))
    throw new ResponseShapeError(
      'malformed',
      `expected a JSON object, got ${Array.isArray(json) ? 'an array' : typeof json}`,
    );
  const { choices, error } = json as { choices?: unknown; error?: unknown };
  if (choices === undefined || (Array.isArray(choices) && choices.length === 0)) {
    const why =
      error && typeof error === 'object' && 'message' in error
        ? ` (server error: ${String(error.message)})`
        : '';
    throw new ResponseShapeError('empty', `response has no choices${why}`);
  }
}

function zodDetail(err: z.ZodError): string {
  const i = err.issues[0]!;
  return `${i.path.join('.') || '<root>'}: ${i.message}`;
}

function byIndex<T extends { index?: number | undefined }>(choices: T[]): T[] {
  if (!choices.every((c) => typeof c.index === 'number')) return choices;
  return choices.slice().sort((a, b) => a.index! - b.index!);
}

/**
 * The tool calls of a chat message, each `{ id, name, arguments }`. An entry that cannot be read
 * (no function name, arguments that are not a string) is kept with a `problem`, so the caller
 * can answer it as an invalid call instead of losing it.
 */
export function readToolCalls(raw: readonly unknown[] | null | undefined): GeneratedToolCall[] {
  return (raw ?? []).map((entry, k) => {
    const e = (entry !== null && typeof entry === 'object' ? entry : {}) as Record<string, unknown>;
    const fn = (e.function !== null && typeof e.function === 'object' ? e.function : {}) as Record<
      string,
      unknown
    >;
    const id = typeof e.id === 'string' && e.id !== '' ? e.id : `call_${k}`;
    const name = typeof fn.name === 'string' ? fn.name : '';
    const args = fn.arguments;
    if (name === '') return { id, name, arguments: '', problem: 'tool call has no function name' };
    if (typeof args === 'string') return { id, name, arguments: args };
    // Some servers send the arguments as an object instead of JSON text.
    if (args !== null && typeof args === 'object') return { id, name, arguments: JSON.stringify(args) };
    return { id, name, arguments: '', problem: 'tool call arguments are not a JSON string' };
  });
}

/** Read a /v1/chat/completions body. */
export function parseChatResponse(json: unknown): OpenAIGeneration[] {
  checkShape(json);
  const parsed = ChatBody.safeParse(json);
  if (!parsed.success)
    throw new ResponseShapeError('malformed', `unexpected chat response: ${zodDetail(parsed.error)}`);
  const promptTop = parsed.data.prompt_token_ids ?? undefined;
  return byIndex(parsed.data.choices).map((c) => {
    const content = c.logprobs?.content ?? [];
    const tokenTexts = content.map((t) => t.token);
    const ids = c.token_ids ?? idsFromTokenTexts(tokenTexts);
    const toolCalls = readToolCalls(c.message.tool_calls);
    return {
      text: c.message.content ?? '',
      promptTokens: promptTop ?? c.prompt_token_ids ?? [],
      tokens: ids,
      logprobs: content.map((t) => t.logprob ?? Number.NaN),
      tokenTexts,
      finishReason: finish(c.finish_reason),
      ...(toolCalls.length > 0 ? { toolCalls } : {}),
    };
  });
}

/** Read a /v1/completions body. */
export function parseCompletionResponse(json: unknown): OpenAIGeneration[] {
  checkShape(json);
  const parsed = CompletionBody.safeParse(json);
  if (!parsed.success)
    throw new ResponseShapeError('malformed', `unexpected completions response: ${zodDetail(parsed.error)}`);
  const promptTop = parsed.data.prompt_token_ids ?? undefined;
  return byIndex(parsed.data.choices).map((c) => {
    const tokenTexts = c.logprobs?.tokens ?? [];
    const ids = c.token_ids ?? idsFromTokenTexts(tokenTexts);
    return {
      text: c.text,
      promptTokens: c.prompt_token_ids ?? promptTop ?? [],
      tokens: ids,
      logprobs: (c.logprobs?.token_logprobs ?? []).map((l) => l ?? Number.NaN),
      tokenTexts,
      finishReason: finish(c.finish_reason),
    };
  });
}
