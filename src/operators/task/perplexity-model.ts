import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { z } from 'zod';
import { ConfigError } from '../../core/errors.ts';
import { type BackoffLm, parseArpa } from '../../models/backoff-lm.ts';
import { CharNgramLm } from '../../models/char-ngram-lm.ts';
import {
  DEFAULT_LM_TOKENIZER,
  defaultLmLanguages,
  hasDefaultLm,
  lmPieces,
  loadDefaultLm,
} from '../../models/default-lm.ts';
import type { OperatorContext } from '../operator.ts';
import { lazyTokenizer } from './task-tokenizer.ts';

/**
 * Which local model perplexity_filter scores with, and how. Three kinds:
 * - `default`: the model Winnow ships for the language (datasets/lm/{lang}.arpa.gz: a back-off
 *   trigram over Qwen3's pieces, counted from the Brown Corpus for English), scored on
 *   Data-Juicer's formula: the text as one sentence, 10^(−log10 P / (pieces + 1));
 * - `arpa`: an ARPA file of your own (KenLM's lmplz writes one): the same formula over the text's
 *   whitespace-separated words, which is how KenLM reads a line;
 * - `char-ngram`: a winnow-char-ngram JSON file (scripts/make-tiny-lm.ts).
 */

/** Where a user-built character model is looked for when `model` is left out: `{lang}` becomes `lang`. */
export const DEFAULT_LM_PATH = '.winnow/models/char-lm-{lang}.json';

export const PerplexityModelSchema = z
  .union([
    z.literal('default').describe("The model Winnow ships for `lang` (datasets/lm; English: 'en')."),
    z.strictObject({
      /** A model file, relative to the config's folder; `{lang}` becomes `lang`. */
      path: z
        .string()
        .min(1)
        .describe('A .arpa/.arpa.gz (KenLM ARPA text) or winnow-char-ngram .json file; {lang} becomes lang.'),
    }),
  ])
  .optional()
  .describe(
    `Left out: ${DEFAULT_LM_PATH} under the config's folder when it exists, else the model Winnow ships for lang.`,
  );
export type PerplexityModel = z.output<typeof PerplexityModelSchema>;

export type LmChoice = { kind: 'default'; lang: string } | { kind: 'arpa' | 'char-ngram'; file: string };

const isArpa = (file: string) => /\.arpa(\.gz)?$/i.test(file);

/** Why no model could be chosen: one sentence and the way out. */
export interface LmProblem {
  problem: string;
  hint: string;
}

/** The model a step scores with, or why there is none (checked before a recipe runs). */
export function findLm(model: PerplexityModel, lang: string, baseDir: string): LmChoice | LmProblem {
  const abs = (p: string) => {
    const rel = p.replaceAll('{lang}', lang);
    return isAbsolute(rel) ? rel : join(baseDir, rel);
  };
  if (model === 'default' || model === undefined) {
    const own = abs(DEFAULT_LM_PATH);
    if (model === undefined && existsSync(own)) return { kind: 'char-ngram', file: own };
    if (hasDefaultLm(lang)) return { kind: 'default', lang };
    return {
      problem: `Winnow ships no language model for '${lang}' (it ships: ${defaultLmLanguages().join(', ')}), and ${own} does not exist`,
      hint: `build one from clean text of that language: node scripts/make-tiny-lm.ts ${own} --corpus clean.txt, or give model.path an ARPA file`,
    };
  }
  const file = abs(model.path);
  return { kind: isArpa(file) ? 'arpa' : 'char-ngram', file };
}

/** The model a step scores with; none is a ConfigError naming the language and the file looked for. */
export function chooseLm(model: PerplexityModel, lang: string, baseDir: string): LmChoice {
  const found = findLm(model, lang, baseDir);
  if ('problem' in found) throw new ConfigError({ path: 'lang', message: found.problem, hint: found.hint });
  return found;
}

/** One line for the run summary: which model scored. */
export function describeLm(choice: LmChoice): string {
  if (choice.kind === 'default') {
    const n = choice.lang === 'en' ? 'English' : choice.lang;
    return `Winnow's ${n} model (datasets/lm/${choice.lang}.arpa.gz: a trigram over Qwen3's pieces counted from the Brown Corpus; Data-Juicer's formula)`;
  }
  return choice.kind === 'arpa'
    ? `the ARPA model ${choice.file} (whitespace words; Data-Juicer's formula)`
    : `the character n-gram model ${choice.file}`;
}

/** Natural-log probabilities of each scored unit of each text (perplexity = exp(−mean)). */
export type Scorer = (texts: readonly string[]) => Promise<number[][]>;

const LN10 = Math.LN10;

function readArpa(file: string): BackoffLm {
  let buf: Buffer;
  try {
    buf = readFileSync(file);
  } catch (err) {
    const missing = (err as NodeJS.ErrnoException).code === 'ENOENT';
    throw new ConfigError({
      path: 'model.path',
      file,
      message: missing ? 'no language model at this path' : (err as Error).message,
    });
  }
  return parseArpa((/\.gz$/i.test(file) ? gunzipSync(buf) : buf).toString('utf8'), file);
}

/** Whitespace-separated words of the text as one line (newlines too are spaces). */
const words = (text: string): string[] => text.split(/\s+/u).filter((w) => w !== '');

/** A scorer for the chosen model, loaded now (the default model's tokenizer through ctx, on first use). */
export function localScorer(choice: LmChoice, ctx: OperatorContext): Scorer {
  if (choice.kind !== 'default') {
    if (choice.kind === 'arpa') {
      const arpa = readArpa(choice.file);
      return async (texts) => texts.map((t) => sentenceLogs(arpa, words(t)));
    }
    const chars = CharNgramLm.load(choice.file);
    return async (texts) => texts.map((t) => chars.logprobs(t));
  }
  const { lm } = loadDefaultLm(choice.lang);
  const tokenizer = lazyTokenizer(DEFAULT_LM_TOKENIZER);
  return async (texts) => {
    const tok = await tokenizer(ctx);
    return texts.map((t) => sentenceLogs(lm, lmPieces(tok, t)));
  };
}

/** Natural logs of each token and of </s>; an empty text scores nothing (perplexity 1). */
function sentenceLogs(lm: BackoffLm, tokens: readonly string[]): number[] {
  if (tokens.length === 0) return [];
  return lm.tokenLog10s(tokens).map((lp) => lp * LN10);
}
