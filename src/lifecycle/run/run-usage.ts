import type { StepMetrics } from '../../operators/step-metrics.ts';

/**
 * What a run spent on models: LLM-backed operators' requests, cache hits, tokens and cost, and the
 * prompt tokens counted by tokenizer steps. Summed over the steps' metrics, stored in the run record
 * (so `winnow runs` shows it) and printed after a run and in its report.
 */
export interface RunUsage {
  llmRequests: number;
  llmCacheHits: number;
  llmPromptTokens: number;
  llmCompletionTokens: number;
  /** Present only when some model has prices configured. */
  llmCost?: number;
}

const KEYS = {
  llm_requests: 'llmRequests',
  llm_cache_hits: 'llmCacheHits',
  llm_prompt_tokens: 'llmPromptTokens',
  llm_completion_tokens: 'llmCompletionTokens',
} as const;

/** The run's model usage, or null when no step called a model. */
export function usageOf(steps: readonly Pick<StepMetrics, 'extra'>[]): RunUsage | null {
  const u: RunUsage = { llmRequests: 0, llmCacheHits: 0, llmPromptTokens: 0, llmCompletionTokens: 0 };
  let seen = false;
  for (const s of steps) {
    for (const [key, field] of Object.entries(KEYS)) {
      const v = s.extra[key];
      if (typeof v !== 'number') continue;
      u[field] += v;
      seen = true;
    }
    const cost = s.extra.llm_cost;
    if (typeof cost === 'number') u.llmCost = (u.llmCost ?? 0) + cost;
  }
  return seen ? u : null;
}

const n = (x: number) => x.toLocaleString('en-US');

/** `LLM: 40 requests sent, 12 answered from cache, 5,120 prompt + 960 completion tokens, cost 0.0312`. */
export function usageLine(u: RunUsage): string {
  const cost = u.llmCost === undefined ? '' : `, cost ${u.llmCost.toFixed(4)}`;
  return `LLM: ${n(u.llmRequests)} requests sent, ${n(u.llmCacheHits)} answered from cache, ${n(u.llmPromptTokens)} prompt + ${n(u.llmCompletionTokens)} completion tokens${cost}`;
}

/**
 * The run's token budget: every token count a step reports (chat_template's `promptTokens`,
 * token_length_filter's `tokensKept`/`tokensDropped`…), by step; LLM usage is counted apart.
 */
export function tokenBudgetOf(
  steps: readonly Pick<StepMetrics, 'step' | 'extra'>[],
): Record<string, Record<string, number>> {
  const out: Record<string, Record<string, number>> = {};
  for (const s of steps) {
    const counts = Object.entries(s.extra).filter(([k]) => /tokens/i.test(k) && !k.startsWith('llm_'));
    if (counts.length > 0) out[s.step] = Object.fromEntries(counts);
  }
  return out;
}

/** `tokens: chat_template promptTokens 4,346; token_length_filter tokensKept 3,927, tokensDropped 419`, or nothing. */
export function tokenBudgetLines(budget: Record<string, Record<string, number>>): string[] {
  const parts = Object.entries(budget).map(
    ([step, counts]) =>
      `${step} ${Object.entries(counts)
        .map(([k, v]) => `${k} ${n(v)}`)
        .join(', ')}`,
  );
  return parts.length === 0 ? [] : [`tokens: ${parts.join('; ')}`];
}
