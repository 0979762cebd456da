import { z } from 'zod';
import { WinnowError } from '../core/errors.ts';
import { Rng } from '../core/rng.ts';
import { backoffDelay, parseRetryAfter, sleep } from './openai/backoff.ts';

/**
 * Log-probabilities of a text's own tokens from an OpenAI-compatible completions endpoint: the
 * request asks the server to echo the prompt with `logprobs: 1`, which vLLM (and the OpenAI legacy
 * API) answers with one logprob per prompt token, `null` for the first (it has no context). Some
 * vLLM versions refuse `max_tokens: 0`, so the default asks for one token and keeps only the
 * entries whose `text_offset` lies inside the prompt.
 */
export const PromptLogprobsConfigSchema = z.strictObject({
  model: z.string().min(1),
  /** Up to and including `/v1`. Default: $OPENAI_BASE_URL, else http://127.0.0.1:8000/v1. */
  baseUrl: z.url().optional(),
  /** Sent as a Bearer token. Default: $OPENAI_API_KEY. Never logged. */
  apiKey: z.string().min(1).optional(),
  /** Texts sent per request (the completions API takes a list of prompts). */
  batchSize: z.number().int().positive().default(16),
  timeoutMs: z.number().int().positive().default(120_000),
  retries: z.number().int().nonnegative().default(3),
  backoffMs: z.number().nonnegative().default(500),
  /** 0 where the server accepts it; 1 works on every vLLM version (the generated token is cut off). */
  maxTokens: z.number().int().min(0).max(1).default(1),
});
export type PromptLogprobsConfig = z.output<typeof PromptLogprobsConfigSchema>;

const ChoiceSchema = z.object({
  index: z.number().int(),
  logprobs: z.object({
    token_logprobs: z.array(z.number().nullable()),
    text_offset: z.array(z.number()).optional(),
  }),
});
const ResponseSchema = z.object({ choices: z.array(ChoiceSchema) });

export class PromptLogprobsError extends WinnowError {
  override name = 'PromptLogprobsError';
}

/** Scores texts through the endpoint; `logprobs(texts)` returns, per text, its prompt tokens' logprobs (first token excluded). */
export class PromptLogprobsClient {
  readonly name: string;
  private readonly c: PromptLogprobsConfig;
  private readonly url: string;
  private readonly apiKey: string | undefined;
  private readonly rng = new Rng('prompt-logprobs-backoff');
  private readonly fetchFn: typeof fetch;

  constructor(
    config: PromptLogprobsConfig,
    opts: { env?: Record<string, string | undefined>; fetch?: typeof fetch } = {},
  ) {
    const env = opts.env ?? process.env;
    this.c = config;
    const base = (config.baseUrl ?? env.OPENAI_BASE_URL ?? 'http://127.0.0.1:8000/v1').replace(/\/+$/, '');
    this.url = `${base}/completions`;
    this.apiKey = config.apiKey ?? (env.OPENAI_API_KEY || undefined);
    this.name = `openai:${config.model}`;
    this.fetchFn = opts.fetch ?? globalThis.fetch;
  }

  async logprobs(texts: readonly string[]): Promise<number[][]> {
    const out: number[][] = [];
    for (let i = 0; i < texts.length; i += this.c.batchSize)
      out.push(...(await this.batch(texts.slice(i, i + this.c.batchSize))));
    return out;
  }

  private async batch(texts: readonly string[]): Promise<number[][]> {
    const body = JSON.stringify({
      model: this.c.model,
      prompt: texts,
      echo: true,
      logprobs: 1,
      max_tokens: this.c.maxTokens,
      temperature: 0,
    });
    let last = '';
    for (let attempt = 0; attempt <= this.c.retries; attempt++) {
      let retryAfter: number | undefined;
      try {
        const res = await this.fetchFn(this.url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            ...(this.apiKey ? { authorization: `Bearer ${this.apiKey}` } : {}),
          },
          body,
          signal: AbortSignal.timeout(this.c.timeoutMs),
        });
        const text = await res.text();
        if (res.ok) return this.parse(text, texts);
        last = `HTTP ${res.status}: ${text.slice(0, 200)}`;
        // Only overload and server errors are worth retrying; a 4xx will not change.
        if (res.status !== 429 && res.status < 500) break;
        retryAfter = parseRetryAfter(res.headers.get('retry-after'));
      } catch (err) {
        if (err instanceof PromptLogprobsError) throw err;
        last = (err as Error).message;
      }
      if (attempt < this.c.retries)
        await sleep(backoffDelay(attempt + 1, this.c.backoffMs, 30_000, this.rng, retryAfter));
    }
    throw new PromptLogprobsError(`${this.url}: prompt logprobs failed (${last})`);
  }

  private parse(text: string, texts: readonly string[]): number[][] {
    let parsed: z.infer<typeof ResponseSchema>;
    try {
      parsed = ResponseSchema.parse(JSON.parse(text));
    } catch {
      throw new PromptLogprobsError(
        `${this.url}: the answer has no choices[].logprobs.token_logprobs (does the server support echo with logprobs on /v1/completions?)`,
      );
    }
    const byIndex = new Map(parsed.choices.map((c) => [c.index, c.logprobs] as const));
    return texts.map((prompt, i) => {
      const lp = byIndex.get(i);
      if (lp === undefined) throw new PromptLogprobsError(`${this.url}: no choice for prompt ${i}`);
      // Offsets count characters (Python's code points) of the echoed text: entries at or past
      // the prompt's end were generated.
      const chars = [...prompt].length;
      const n = lp.text_offset
        ? lp.text_offset.filter((o) => o < chars).length
        : lp.token_logprobs.length - this.c.maxTokens;
      return lp.token_logprobs.slice(0, n).filter((v): v is number => v !== null);
    });
  }
}
