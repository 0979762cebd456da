import { isAbsolute, join } from 'node:path';
import { z } from 'zod';
import type { Task } from '../../core/task.ts';
import { CharNgramLm } from '../../models/char-ngram-lm.ts';
import { PromptLogprobsClient, PromptLogprobsConfigSchema } from '../../models/prompt-logprobs.ts';
import type { Drop, OperatorContext } from '../operator.ts';
import { defineOperator } from '../operator.ts';
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

/** Where a model file is read from: `{lang}` in the path becomes the operator's `lang`. */
export const DEFAULT_LM_PATH = '.winnow/models/char-lm-{lang}.json';

const LocalModel = z.strictObject({
  /** A winnow-char-ngram JSON file (scripts/make-tiny-lm.ts); relative to the config's folder. */
  path: z.string().min(1).default(DEFAULT_LM_PATH),
});

const Params = z.strictObject({
  field: TextFieldSchema.default('prompt'),
  /** Rows whose perplexity is above this are dropped (Data-Juicer's max_ppl; its default). */
  maxPpl: z.number().positive().default(1500),
  /** Rows whose perplexity is below this are dropped too (newer Data-Juicer's min_ppl; 0: no lower bound). */
  minPpl: z.number().min(0).default(0),
  /** Language code substituted for `{lang}` in model.path (Data-Juicer's lang picks its KenLM model). */
  lang: z
    .string()
    .regex(/^[a-z]{2,3}$/, 'an ISO 639-1 code such as en')
    .default('en'),
  /** The local character n-gram model; ignored when `endpoint` is set. */
  model: LocalModel.default({ path: DEFAULT_LM_PATH }),
  /** Score with a served model's prompt logprobs instead (OpenAI-compatible /v1/completions, echo). */
  endpoint: PromptLogprobsConfigSchema.optional(),
  /** features.<scoreKey> gets every row's perplexity (kept and dropped rows alike). */
  scoreKey: z.string().min(1).default('perplexity'),
});
type PerplexityParams = z.output<typeof Params>;

type Scorer = (texts: readonly string[]) => Promise<number[][]>;

function makeScorer(p: PerplexityParams, ctx: OperatorContext): Scorer {
  if (p.endpoint !== undefined) {
    const client = new PromptLogprobsClient(p.endpoint);
    return (texts) => client.logprobs(texts);
  }
  const rel = p.model.path.replaceAll('{lang}', p.lang);
  const lm = CharNgramLm.load(isAbsolute(rel) ? rel : join(ctx.baseDir ?? process.cwd(), rel));
  return async (texts) => texts.map((t) => lm.logprobs(t));
}

const fmtPpl = (x: number) => (x >= 100 ? x.toFixed(1) : x.toPrecision(4));

export const perplexityFilterOp = defineOperator<Task, typeof Params>({
  name: 'perplexity_filter',
  kind: 'filter',
  needsModel: true,
  description:
    'Score each text with a causal language model (a local character n-gram file, or an endpoint’s prompt logprobs); keep rows with minPpl ≤ perplexity ≤ maxPpl; records features.perplexity.',
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
