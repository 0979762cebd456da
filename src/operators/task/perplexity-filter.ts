import { z } from 'zod';
import type { Task } from '../../core/task.ts';
import { PromptLogprobsClient, PromptLogprobsConfigSchema } from '../../models/prompt-logprobs.ts';
import type { Drop, OperatorContext } from '../operator.ts';
import { defineOperator } from '../operator.ts';
import { chooseLm, localScorer, PerplexityModelSchema, type Scorer } from './perplexity-model.ts';
import { readText, TextFieldSchema } from './text-fields.ts';

/**
 * Perplexity of a text from its tokens' natural-log probabilities: exp(−mean). A text with no
 * scored token (an empty prompt through an endpoint) has perplexity 1: nothing was surprising.
 */
export function perplexity(logprobs: readonly number[]): number {
  if (logprobs.length === 0) return 1;
  let sum = 0;
  for (const lp of logprobs) sum += lp;
  return Math.exp(-sum / logprobs.length);
}

export { DEFAULT_LM_PATH } from './perplexity-model.ts';

const Params = z.strictObject({
  field: TextFieldSchema.default('prompt'),
  /** Rows whose perplexity is above this are dropped (Data-Juicer's max_ppl; its default). */
  maxPpl: z.number().positive().default(1500),
  /** Rows whose perplexity is below this are dropped too (newer Data-Juicer's min_ppl; 0: no lower bound). */
  minPpl: z.number().min(0).default(0),
  /** The language: picks the shipped model, and replaces `{lang}` in model.path (Data-Juicer's lang picks its KenLM model). */
  lang: z
    .string()
    .regex(/^[a-z]{2,3}$/, 'an ISO 639-1 code such as en')
    .default('en'),
  /** The local model (see perplexity-model.ts); ignored when `endpoint` is set. */
  model: PerplexityModelSchema,
  /** Score with a served model's prompt logprobs instead (OpenAI-compatible /v1/completions, echo). */
  endpoint: PromptLogprobsConfigSchema.optional(),
  /** features.<scoreKey> gets every row's perplexity (kept and dropped rows alike). */
  scoreKey: z.string().min(1).default('perplexity'),
});
type PerplexityParams = z.output<typeof Params>;

function makeScorer(p: PerplexityParams, ctx: OperatorContext): Scorer {
  if (p.endpoint !== undefined) {
    const client = new PromptLogprobsClient(p.endpoint);
    return (texts) => client.logprobs(texts);
  }
  return localScorer(chooseLm(p.model, p.lang, ctx.baseDir ?? process.cwd()), ctx);
}

const fmtPpl = (x: number) => (x >= 100 ? x.toFixed(1) : x.toPrecision(4));

export const perplexityFilterOp = defineOperator<Task, typeof Params>({
  name: 'perplexity_filter',
  kind: 'filter',
  needsModel: true,
  description:
    'Score each text with a language model (the shipped word-piece trigram for lang, an ARPA or character n-gram file, or an endpoint’s prompt logprobs); keep rows with minPpl ≤ perplexity ≤ maxPpl; records features.perplexity.',
  params: Params,
  create(p) {
    let scorer: Scorer | null = null;
    return {
      name: 'perplexity_filter',
      kind: 'filter',
      async process(batch, ctx) {
        scorer ??= makeScorer(p, ctx);
        const scores = await scorer(batch.map((t) => readText(t, p.field)));
        const rows: Task[] = [];
        const dropped: Drop<Task>[] = [];
        batch.forEach((task, i) => {
          const ppl = perplexity(scores[i]!);
          const out = { ...task, features: { ...task.features, [p.scoreKey]: ppl } };
          if (ppl > p.maxPpl)
            dropped.push({ row: out, reason: `perplexity ${fmtPpl(ppl)} > maxPpl ${p.maxPpl}` });
          else if (ppl < p.minPpl)
            dropped.push({ row: out, reason: `perplexity ${fmtPpl(ppl)} < minPpl ${p.minPpl}` });
          else rows.push(out);
        });
        return { rows, dropped };
      },
    };
  },
});
