import { WinnowError } from '../../core/errors.ts';
import { Rng } from '../../core/rng.ts';
import type { JsonValue } from '../../core/task.ts';
import type { GenerateRequest, RolloutModel } from '../rollout-model.ts';
import type { Tokenizer } from '../tokenizer.ts';
import { backoffDelay, parseRetryAfter, sleep } from './backoff.ts';
import { type OpenAIModelConfig, resolveOpenAIConfig } from './config.ts';
import {
  type OpenAIGeneration,
  parseChatResponse,
  parseCompletionResponse,
  ResponseShapeError,
} from './parse-response.ts';
import { RolloutError, type RolloutErrorKind } from './rollout-error.ts';
import { Semaphore } from './semaphore.ts';
import { fillTokenIds } from './token-fill.ts';

/** One failed attempt, before we know how many attempts there were. */
class AttemptFailure extends Error {
  readonly kind: RolloutErrorKind;
  readonly status: number | undefined;
  readonly retryAfterMs: number | undefined;
  constructor(
    kind: RolloutErrorKind,
    detail: string,
    opts: { status?: number; retryAfterMs?: number; cause?: unknown } = {},
  ) {
    super(detail, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.kind = kind;
    this.status = opts.status;
    this.retryAfterMs = opts.retryAfterMs;
  }
}

/** Counters for reports: how often the server needed retries or ignored `n`. */
export interface OpenAIClientStats {
  requests: number;
  attempts: number;
  retries: number;
  failures: number;
  /** Extra single-sample requests sent because a response had fewer choices than `n`. */
  topUpRequests: number;
}

function networkDetail(err: unknown): string {
  const e = err as { message?: string; cause?: { code?: string; message?: string } };
  const cause = e.cause ? `: ${e.cause.code ?? e.cause.message ?? String(e.cause)}` : '';
  return `${e.message ?? String(err)}${cause}`;
}

function excerpt(text: string, max = 300): string {
  const t = text.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max)}…` : t;
}

/**
 * A rollout model served over an OpenAI-compatible HTTP API (chat or completions endpoint),
 * with per-attempt timeouts, retries with seeded exponential backoff, a cap on requests in
 * flight, and a fallback for servers that ignore `n`. Failures are `RolloutError`s.
 */
export class OpenAIRolloutModel implements RolloutModel {
  readonly name: string;
  readonly #config: OpenAIModelConfig;
  readonly #url: string;
  readonly #semaphore: Semaphore;
  readonly #rng: Rng;
  readonly #fetch: typeof fetch;
  #requestCount = 0;
  #servedModel: string | undefined;
  readonly #tokenizer: Tokenizer | undefined;
  readonly #stats: OpenAIClientStats = {
    requests: 0,
    attempts: 0,
    retries: 0,
    failures: 0,
    topUpRequests: 0,
  };

  constructor(
    config: unknown,
    opts: {
      env?: Record<string, string | undefined>;
      fetch?: typeof fetch;
      path?: string;
      file?: string;
      /** Fills token ids the server does not send (see token-fill.ts). */
      tokenizer?: Tokenizer;
    } = {},
  ) {
    this.#config = resolveOpenAIConfig(config, opts);
    this.#tokenizer = opts.tokenizer;
    this.name = `openai:${this.#config.model}`;
    this.#url = `${this.#config.baseUrl}/${this.#config.endpoint === 'chat' ? 'chat/completions' : 'completions'}`;
    this.#semaphore = new Semaphore(this.#config.concurrency);
    this.#rng = new Rng(this.#config.jitterSeed);
    this.#fetch = opts.fetch ?? globalThis.fetch;
  }

  /** The resolved config with the API key masked: safe to log or report. */
  get config(): Readonly<Omit<OpenAIModelConfig, 'apiKey'> & { apiKey: string | undefined }> {
    return { ...this.#config, apiKey: this.#config.apiKey === undefined ? undefined : '***' };
  }

  get url(): string {
    return this.#url;
  }

  stats(): OpenAIClientStats {
    return { ...this.#stats };
  }

  /**
   * Weight-sync hook (src/models/weight-sync): the model name requests carry from now on, e.g. the
   * LoRA adapter the server just loaded; `undefined` goes back to the configured `model`.
   */
  set servedModel(name: string | undefined) {
    this.#servedModel = name;
  }

  get servedModel(): string {
    return this.#servedModel ?? this.#config.model;
  }

  /** Requests currently holding a concurrency slot. */
  get inFlight(): number {
    return this.#semaphore.inFlight;
  }

  async generate(request: GenerateRequest): Promise<OpenAIGeneration[]> {
    const generations = await this.#generate(request);
    if (this.#tokenizer === undefined) return generations;
    return fillTokenIds(generations, request, this.#tokenizer, this.#config.endpoint);
  }

  async #generate(request: GenerateRequest): Promise<OpenAIGeneration[]> {
    const n = request.n;
    if (!Number.isInteger(n) || n < 0)
      throw new WinnowError(`${this.name}: n must be a non-negative integer, got ${n}`);
    if (n === 0) return [];
    const body = this.#body(request);
    // One failure cancels the sibling requests of this call.
    const group = new AbortController();
    const signal = request.signal ? AbortSignal.any([request.signal, group.signal]) : group.signal;
    const single = (k: number) => {
      const b: Record<string, JsonValue> = { ...body, n: 1 };
      if (typeof body.seed === 'number') b.seed = body.seed + k;
      return this.#request(b, signal);
    };
    try {
      if (!this.#config.supportsN)
        return (await Promise.all(Array.from({ length: n }, (_, k) => single(k)))).flat();
      const first = await this.#request({ ...body, n }, signal);
      if (first.length >= n) return first.slice(0, n);
      // The server ignored `n` (or returned fewer): ask for the rest one by one.
      const missing = n - first.length;
      this.#stats.topUpRequests += missing;
      const rest = await Promise.all(Array.from({ length: missing }, (_, j) => single(first.length + j)));
      return [...first, ...rest.flat()].slice(0, n);
    } catch (err) {
      group.abort(err);
      throw err;
    }
  }

  #body(request: GenerateRequest): Record<string, JsonValue> {
    const c = this.#config;
    const body: Record<string, JsonValue> = {};
    const set = (k: string, v: JsonValue | undefined) => {
      if (v !== undefined) body[k] = v;
    };
    set('temperature', request.temperature ?? c.temperature);
    set('max_tokens', request.maxTokens ?? c.maxTokens);
    set('top_p', c.topP);
    set('stop', c.stop);
    set('seed', request.seed ?? c.seed);
    // Chat takes a boolean; completions takes how many top alternatives (1 = just the sampled token's).
    if (c.logprobs) body.logprobs = c.endpoint === 'chat' ? true : 1;
    Object.assign(body, c.extraBody);
    body.model = this.#servedModel ?? c.model;
    body.stream = false;
    if (c.endpoint === 'chat') {
      if (request.messages && request.messages.length > 0) body.messages = request.messages;
      else if (request.prompt !== undefined) body.messages = [{ role: 'user', content: request.prompt }];
      else throw new WinnowError(`${this.name}: a generate request needs a prompt or messages`);
      if (request.tools && request.tools.length > 0) body.tools = request.tools as unknown as JsonValue;
    } else {
      if (request.prompt === undefined)
        throw new WinnowError(
          `${this.name}: the completions endpoint needs a prompt, but the request has only messages (use endpoint: chat)`,
        );
      body.prompt = request.prompt;
    }
    return body;
  }

  /** One logical request: attempts with retries and backoff, each holding a concurrency slot. */
  async #request(body: Record<string, JsonValue>, signal: AbortSignal): Promise<OpenAIGeneration[]> {
    this.#stats.requests++;
    const rng = this.#rng.fork(this.#requestCount++);
    const maxAttempts = this.#config.retries + 1;
    for (let attempt = 1; ; attempt++) {
      const release = await this.#semaphore.acquire(signal);
      let failure: AttemptFailure;
      try {
        this.#stats.attempts++;
        return await this.#attempt(body, signal);
      } catch (err) {
        if (!(err instanceof AttemptFailure)) throw err;
        failure = err;
      } finally {
        release();
      }
      if (attempt >= maxAttempts || !RolloutError.isRetryable(failure.kind, failure.status)) {
        this.#stats.failures++;
        throw new RolloutError({
          kind: failure.kind,
          detail: this.#redact(failure.message),
          url: this.#url,
          attempts: attempt,
          status: failure.status,
          cause: failure.cause,
        });
      }
      this.#stats.retries++;
      const delay = backoffDelay(
        attempt,
        this.#config.backoffMs,
        this.#config.maxBackoffMs,
        rng,
        failure.retryAfterMs,
      );
      await sleep(delay, signal);
    }
  }

  async #attempt(body: Record<string, JsonValue>, outer: AbortSignal): Promise<OpenAIGeneration[]> {
    const timer = new AbortController();
    const timeoutMs = this.#config.timeoutMs;
    const handle = setTimeout(() => timer.abort(new Error('timeout')), timeoutMs);
    const signal = AbortSignal.any([outer, timer.signal]);
    // Tell our timeout apart from the caller's abort, which is not retried and not ours to wrap.
    const classify = (err: unknown): AttemptFailure | unknown => {
      if (outer.aborted) return outer.reason;
      if (timer.signal.aborted)
        return new AttemptFailure('timeout', `no complete response within ${timeoutMs} ms`);
      return new AttemptFailure('network', networkDetail(err), { cause: err });
    };
    try {
      const headers: Record<string, string> = {
        'content-type': 'application/json',
        accept: 'application/json',
      };
      if (this.#config.apiKey !== undefined) headers.authorization = `Bearer ${this.#config.apiKey}`;
      let res: Response;
      let text: string;
      try {
        res = await this.#fetch(this.#url, { method: 'POST', headers, body: JSON.stringify(body), signal });
        text = await res.text();
      } catch (err) {
        throw classify(err);
      }
      if (!res.ok)
        throw new AttemptFailure('http', `HTTP ${res.status}${text ? `: ${excerpt(text)}` : ''}`, {
          status: res.status,
          retryAfterMs: parseRetryAfter(res.headers.get('retry-after')),
        });
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        throw new AttemptFailure(
          'malformed',
          `response is not JSON: ${excerpt(text, 120) || '<empty body>'}`,
          {
            status: res.status,
          },
        );
      }
      try {
        return this.#config.endpoint === 'chat' ? parseChatResponse(json) : parseCompletionResponse(json);
      } catch (err) {
        if (err instanceof ResponseShapeError)
          throw new AttemptFailure(err.kind, err.message, { status: res.status });
        throw err;
      }
    } finally {
      clearTimeout(handle);
    }
  }

  /** Belt and braces: no message we raise may carry the API key, even if a server echoes it. */
  #redact(text: string): string {
    const key = this.#config.apiKey;
    return key ? text.split(key).join('***') : text;
  }
}

/** Factory for a model registry: validates the config (filling baseUrl/apiKey from the environment). */
export function createOpenAIRolloutModel(
  config: unknown,
  opts: {
    env?: Record<string, string | undefined>;
    fetch?: typeof fetch;
    path?: string;
    file?: string;
    tokenizer?: Tokenizer;
  } = {},
): OpenAIRolloutModel {
  return new OpenAIRolloutModel(config, opts);
}
