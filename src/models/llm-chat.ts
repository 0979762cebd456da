import { resolve } from 'node:path';
import { z } from 'zod';
import type { JsonValue } from '../core/task.ts';
import { LlmCache } from './llm-cache.ts';
import { OpenAIRolloutModel } from './openai/client.ts';
import { OpenAIModelConfigSchema } from './openai/config.ts';

/** Optional prices, in any currency, per 1000 tokens; the cost is reported when either is set. */
export const LlmPricesSchema = z.strictObject({
  promptPer1k: z.number().nonnegative().default(0),
  completionPer1k: z.number().nonnegative().default(0),
});

/** What every LLM-backed operator takes: the model (the rollout model's schema), a cache, prices. */
export const LlmCallParamsSchema = z.object({
  model: OpenAIModelConfigSchema,
  /** Folder of the response cache; null turns it off. Relative to the config file's folder. */
  cacheDir: z.string().min(1).nullable().default('.winnow/llm-cache'),
  prices: LlmPricesSchema.optional(),
});
export type LlmCallParams = z.output<typeof LlmCallParamsSchema>;

/** Counters of one model client, as numbers an operator reports in its metrics. */
export interface LlmUsage {
  requests: number;
  cacheHits: number;
  promptTokens: number;
  completionTokens: number;
  cost: number;
}

const UsageSchema = z
  .object({
    usage: z
      .object({ prompt_tokens: z.number().optional(), completion_tokens: z.number().optional() })
      .loose()
      .nullable()
      .optional(),
  })
  .loose();

export interface LlmAsk {
  prompt: string;
  n?: number;
  temperature?: number;
  maxTokens?: number;
  seed?: number;
}

/**
 * A chat model for data operators: the OpenAI-compatible client (concurrency, timeouts, retries
 * with seeded backoff) plus the on-disk response cache and token/cost accounting read from each
 * response's `usage`. Failures are the client's `RolloutError`s, one line each.
 */
export class LlmChat {
  readonly model: OpenAIRolloutModel;
  #cache: LlmCache | undefined;
  #baseDir: string | undefined;
  readonly #params: LlmCallParams;
  readonly #usage: LlmUsage = { requests: 0, cacheHits: 0, promptTokens: 0, completionTokens: 0, cost: 0 };
  readonly #reading = new Set<Promise<void>>();

  constructor(params: LlmCallParams, opts: { env?: Record<string, string | undefined>; path?: string } = {}) {
    this.#params = params;
    const realFetch = globalThis.fetch;
    // Usage is read off the wire so the client itself stays the rollout model's, unchanged.
    const counting: typeof fetch = async (input, init) => {
      const res = await realFetch(input, init);
      if (res.ok) {
        const reading = this.#countUsage(res.clone());
        this.#reading.add(reading);
        void reading.finally(() => this.#reading.delete(reading));
      }
      return res;
    };
    this.model = new OpenAIRolloutModel(params.model, { ...opts, fetch: counting });
  }

  /**
   * The folder a relative `cacheDir` resolves against (the config file's; default: the working
   * directory). Takes effect only before the first request opens the cache.
   */
  setBaseDir(dir: string | undefined): void {
    if (this.#cache === undefined) this.#baseDir = dir;
  }

  /** The response cache, opened on first use; undefined when `cacheDir` is null. */
  get cache(): LlmCache | undefined {
    const dir = this.#params.cacheDir;
    if (dir === null) return undefined;
    this.#cache ??= new LlmCache(resolve(this.#baseDir ?? process.cwd(), dir));
    return this.#cache;
  }

  usage(): LlmUsage {
    return { ...this.#usage };
  }

  async #countUsage(res: Response): Promise<void> {
    try {
      const parsed = UsageSchema.safeParse(JSON.parse(await res.text()));
      const u = parsed.success ? parsed.data.usage : undefined;
      if (!u) return;
      const prompt = u.prompt_tokens ?? 0;
      const completion = u.completion_tokens ?? 0;
      this.#usage.promptTokens += prompt;
      this.#usage.completionTokens += completion;
      const p = this.#params.prices;
      if (p) this.#usage.cost += (prompt * p.promptPer1k + completion * p.completionPer1k) / 1000;
    } catch {
      // A body that is not JSON is the client's to report; it carries no usage.
    }
  }

  /** `n` replies to one user prompt, from the cache when this exact request was answered before. */
  async ask(ask: LlmAsk): Promise<string[]> {
    const n = ask.n ?? 1;
    const c = this.model.config;
    const key: JsonValue = {
      model: c.model,
      endpoint: c.endpoint,
      prompt: ask.prompt,
      n,
      temperature: ask.temperature ?? c.temperature ?? null,
      maxTokens: ask.maxTokens ?? c.maxTokens ?? null,
      topP: c.topP ?? null,
      stop: c.stop ?? null,
      seed: ask.seed ?? c.seed ?? null,
      extraBody: c.extraBody,
    };
    const send = async () => {
      this.#usage.requests++;
      const gens = await this.model.generate({
        prompt: ask.prompt,
        n,
        temperature: ask.temperature,
        maxTokens: ask.maxTokens,
        seed: ask.seed,
      });
      // The usage readers work on cloned bodies; let them finish before anyone reads the totals.
      await Promise.all(this.#reading);
      return gens.map((g) => g.text);
    };
    const cache = this.cache;
    if (!cache) return send();
    const { texts, cached } = await cache.getOrCompute(key, send);
    if (cached) this.#usage.cacheHits++;
    return texts;
  }
}

/** Per-batch metrics of an operator: the change in its client's counters over the batch. */
export function usageMetrics(before: LlmUsage, after: LlmUsage, priced: boolean): Record<string, number> {
  const m: Record<string, number> = {
    llm_requests: after.requests - before.requests,
    llm_cache_hits: after.cacheHits - before.cacheHits,
    llm_prompt_tokens: after.promptTokens - before.promptTokens,
    llm_completion_tokens: after.completionTokens - before.completionTokens,
  };
  if (priced) m.llm_cost = after.cost - before.cost;
  return m;
}
