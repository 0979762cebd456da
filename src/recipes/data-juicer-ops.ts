import { z } from 'zod';

/**
 * Data-Juicer operator → Winnow operator, one entry per supported op. Each entry declares the op's
 * Data-Juicer parameters with Data-Juicer's defaults (so a recipe that leaves one out means what it
 * means there), and turns them into the Winnow operator's params. A value Winnow cannot honour
 * throws `UnsupportedParam`, naming the parameter. This table (its mappers in data-juicer-mappers.ts)
 * is the one place to add an op once its Winnow analog is registered (src/operators/registries.ts);
 * docs/recipes.md lists it.
 */

import { type Banding, optimalBanding } from '../operators/task/lsh-banding.ts';
import { FLAGGED_WORD_LANGUAGES } from '../operators/task/word-lists.ts';
import { DATA_JUICER_MAPPERS } from './data-juicer-mappers.ts';
import {
  type DjOpTranslation,
  defined,
  djWordListLangs,
  lang,
  maxDefault,
  maxOrNone,
  noTokenization,
  num,
  requireZero,
  UnsupportedParam,
} from './data-juicer-op-kit.ts';

export {
  DJ_RUNTIME_PARAMS,
  type DjArgs,
  type DjOpTranslation,
  UnsupportedParam,
} from './data-juicer-op-kit.ts';

export const DATA_JUICER_OPS: Readonly<Record<string, DjOpTranslation>> = {
  ...DATA_JUICER_MAPPERS,
  text_length_filter: {
    winnow: 'length_filter',
    params: z.object({ min_len: num.int().nonnegative().default(10), max_len: maxDefault }),
    translate: (a) => defined({ minChars: a.min_len, maxChars: maxOrNone(a.max_len) }),
  },
  words_num_filter: {
    winnow: 'length_filter',
    params: z.object({
      lang,
      tokenization: z.boolean().default(false),
      min_num: num.int().nonnegative().default(10),
      max_num: maxDefault,
    }),
    translate: (a) => {
      noTokenization(a);
      return defined({ minWords: a.min_num, maxWords: maxOrNone(a.max_num) });
    },
    differs: 'Words are runs of non-whitespace (punctuation-only tokens count).',
  },
  alphanumeric_filter: {
    winnow: 'alnum_ratio_filter',
    params: z.object({
      tokenization: z.boolean().default(false),
      min_ratio: num.default(0.25),
      max_ratio: maxDefault,
    }),
    translate: (a) => {
      noTokenization(a);
      if ((a.max_ratio as number) < 1)
        throw new UnsupportedParam(
          'max_ratio',
          'only values ≥ 1 are supported (no upper bound on the ratio)',
        );
      return { minRatio: a.min_ratio };
    },
  },
  character_repetition_filter: {
    winnow: 'char_repetition_filter',
    params: z.object({
      rep_len: num.int().positive().default(10),
      min_ratio: num.default(0),
      max_ratio: num.default(0.5),
    }),
    translate: (a) => {
      requireZero(a, 'min_ratio');
      return { n: a.rep_len, maxRatio: a.max_ratio };
    },
  },
  word_repetition_filter: {
    winnow: 'word_repetition_filter',
    params: z.object({
      lang,
      tokenization: z.boolean().default(false),
      rep_len: num.int().positive().default(10),
      min_ratio: num.default(0),
      max_ratio: num.default(0.5),
    }),
    translate: (a) => {
      noTokenization(a);
      requireZero(a, 'min_ratio');
      return { n: a.rep_len, maxRatio: a.max_ratio };
    },
  },
  special_characters_filter: {
    winnow: 'special_char_ratio_filter',
    params: z.object({ min_ratio: num.default(0), max_ratio: num.default(0.25) }),
    translate: (a) => {
      requireZero(a, 'min_ratio');
      return { maxRatio: a.max_ratio };
    },
    differs: 'Digits and whitespace are not special characters, so arithmetic is not penalised.',
  },
  flagged_words_filter: {
    winnow: 'flagged_words_filter',
    params: z.object({
      lang,
      tokenization: z.boolean().default(false),
      max_ratio: num.default(0.045),
      flagged_words_dir: z.string().nullable().default(null),
      use_words_aug: z.literal(false).default(false),
    }),
    translate: (a) => {
      noTokenization(a);
      if (a.flagged_words_dir !== null)
        throw new UnsupportedParam(
          'flagged_words_dir',
          "not supported; give Winnow's flagged_words_filter a `file`",
        );
      return {
        words: [],
        lang: djWordListLangs(a.lang as string, FLAGGED_WORD_LANGUAGES),
        maxRatio: a.max_ratio,
      };
    },
    differs:
      "The naughty-words list of `lang` (LDNOOBW, CC-BY-4.0; `all`: every language), not Data-Juicer's downloaded list; CJK entries match whole segmenter words.",
  },
  document_deduplicator: {
    winnow: 'exact_dedup',
    params: z.object({
      lowercase: z.boolean().default(false),
      ignore_non_character: z.boolean().default(false),
    }),
    translate: (a) => ({
      unicode: 'none',
      lowercase: a.lowercase,
      stripPunctuation: a.ignore_non_character,
      whitespace: a.ignore_non_character ? 'remove' : 'keep',
      checkIds: false,
    }),
    differs:
      'ignore_non_character removes punctuation and whitespace but keeps digits, so numbers still tell texts apart.',
  },
  document_minhash_deduplicator: {
    winnow: 'near_dedup',
    params: z.object({
      tokenization: z.enum(['space', 'character', 'punctuation', 'sentencepiece']).default('space'),
      window_size: num.int().positive().default(5),
      lowercase: z.boolean().default(true),
      ignore_pattern: z.string().nullable().default(null),
      num_permutations: num.int().min(1).max(1024).default(256),
      jaccard_threshold: num.gt(0).max(1).default(0.7),
      num_bands: num.int().positive().nullable().default(null),
      num_rows_per_band: num.int().positive().nullable().default(null),
      tokenizer_model: z.string().nullable().default(null),
    }),
    translate: (a) => {
      if (a.tokenization !== 'space' && a.tokenization !== 'character')
        throw new UnsupportedParam(
          'tokenization',
          `'${String(a.tokenization)}' is not supported (space or character)`,
        );
      if (a.ignore_pattern !== null) throw new UnsupportedParam('ignore_pattern', 'not supported');
      const perms = a.num_permutations as number;
      const banding = djBanding(
        a.jaccard_threshold as number,
        perms,
        a.num_bands as number | null,
        a.num_rows_per_band as number | null,
      );
      return {
        tokenizer: a.tokenization === 'space' ? 'word' : 'char',
        ngram: a.window_size,
        permutations: perms,
        bands: banding.bands,
        rows: banding.rows,
        threshold: a.jaccard_threshold,
        verify: false,
        lowercase: a.lowercase,
      };
    },
    differs:
      'A row is dropped when it shares an LSH band with an earlier kept row (no clusters); words are runs of letters and digits, not space-separated tokens.',
  },
  perplexity_filter: {
    winnow: 'perplexity_filter',
    params: z.object({
      lang: z.string().default('en'),
      max_ppl: num.positive().default(1500),
      min_ppl: num.min(0).default(0),
    }),
    translate: (a) => {
      if (!/^[a-z]{2,3}$/.test(String(a.lang)))
        throw new UnsupportedParam('lang', `'${String(a.lang)}' is not a language code such as en`);
      return { lang: a.lang, maxPpl: a.max_ppl, minPpl: a.min_ppl };
    },
    differs:
      "Scored by a character n-gram model file at .winnow/models/char-lm-{lang}.json under the working folder (scripts/make-tiny-lm.ts builds one from your corpus), not Data-Juicer's downloaded KenLM word model: perplexities are on another scale, so calibrate max_ppl on a sample.",
  },
  document_simhash_deduplicator: {
    winnow: 'simhash_dedup',
    params: z.object({
      tokenization: z.enum(['space', 'character', 'punctuation']).default('space'),
      window_size: num.int().positive().default(6),
      lowercase: z.boolean().default(true),
      ignore_pattern: z.string().nullable().default(null),
      num_blocks: num.int().min(2).max(32).default(6),
      hamming_distance: num.int().min(0).max(32).default(4),
    }),
    translate: (a) => {
      if (a.tokenization === 'punctuation')
        throw new UnsupportedParam('tokenization', "'punctuation' is not supported (space or character)");
      if (a.ignore_pattern !== null) throw new UnsupportedParam('ignore_pattern', 'not supported');
      return {
        tokenizer: a.tokenization === 'space' ? 'word' : 'char',
        window: a.window_size,
        lowercase: a.lowercase,
        hammingDistance: a.hamming_distance,
        blocks: a.num_blocks,
      };
    },
    differs: 'A row is dropped when it is near an earlier kept row (no clusters); words are CJK-aware.',
  },
};

/**
 * Data-Juicer's banding: num_bands × num_rows_per_band when the recipe gives both, else (either
 * missing) the pair its optimiser picks for the threshold and permutation count.
 */
function djBanding(threshold: number, perms: number, bands: number | null, rows: number | null): Banding {
  if (bands === null || rows === null) return optimalBanding(threshold, perms);
  if (bands * rows > perms)
    throw new UnsupportedParam('num_bands', `${bands} bands × ${rows} rows exceed num_permutations ${perms}`);
  return { bands, rows };
}

/** Why a known Data-Juicer op family cannot run here (for the error's hint). */
export function unsupportedFamily(op: string): string | undefined {
  if (/^(image|video|audio)_/.test(op) || /_(image|video|audio)_/.test(op))
    return "Winnow's task operators read text only";
  if (/perplexity|token_num|llm_|_model_/.test(op)) return 'no Winnow analog in this build';
  return undefined;
}
