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
import { describeLm, findLm } from '../operators/task/perplexity-model.ts';
import { FLAGGED_WORD_LANGUAGES } from '../operators/task/word-lists.ts';
import { DATA_JUICER_MAPPERS } from './data-juicer-mappers.ts';
import { DATA_JUICER_MORE_OPS, RAY_BTS_RUNTIME_PARAMS } from './data-juicer-more-ops.ts';
import {
  type DjOpTranslation,
  defined,
  djWordListLangs,
  lang,
  maxDefault,
  maxOrNone,
  num,
  RECIPE_TOKENIZER,
  UnsupportedParam,
  wordSplitOf,
} from './data-juicer-op-kit.ts';
import { pythonRegexToJs } from './python-regex.ts';

/** Where the word filters differ with tokenization: true. */
const TOKENIZER_DIFFERS =
  "tokenization: true splits into the pieces of Qwen3's tokenizer (shipped with Winnow), not Data-Juicer's per-language sentencepiece model, so counts differ somewhat.";

/** A Python pattern of the recipe as the JavaScript one that matches the same text. */
function jsPattern(pattern: string): string {
  const js = pythonRegexToJs(pattern);
  if (!js.ok) throw new UnsupportedParam('ignore_pattern', js.why);
  return js.source;
}

export {
  DJ_RUNTIME_PARAMS,
  type DjArgs,
  type DjOpTranslation,
  UnsupportedParam,
} from './data-juicer-op-kit.ts';

const CORE_OPS: Readonly<Record<string, DjOpTranslation>> = {
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
    translate: (a) => defined({ minWords: a.min_num, maxWords: maxOrNone(a.max_num), ...wordSplitOf(a) }),
    differs: TOKENIZER_DIFFERS,
  },
  alphanumeric_filter: {
    winnow: 'alnum_ratio_filter',
    // With tokenization the ratio is letters per token (it can exceed 1): Winnow's letters_per_token_filter.
    winnowFor: (a) => (a.tokenization === true ? 'letters_per_token_filter' : 'alnum_ratio_filter'),
    params: z.object({
      tokenization: z.boolean().default(false),
      min_ratio: num.default(0.25),
      max_ratio: maxDefault,
    }),
    translate: (a) => {
      const max = a.max_ratio as number;
      if (a.tokenization === true)
        return defined({
          tokenizer: RECIPE_TOKENIZER,
          lettersOnly: true,
          minRatio: a.min_ratio,
          maxRatio: maxOrNone(max),
        });
      if ((a.min_ratio as number) > 1)
        throw new UnsupportedParam(
          'min_ratio',
          'a share of characters is at most 1, so no row would be kept',
        );
      // A share of characters never exceeds 1: a bound of 1 or more is no bound.
      return defined({ minRatio: a.min_ratio, maxRatio: max < 1 ? max : undefined });
    },
    differs:
      "Without tokenization, combining marks count as letters (Python's isalnum does not count them). With tokenization: true, letters per token of Qwen3's tokenizer, not Pythia's.",
  },
  character_repetition_filter: {
    winnow: 'char_repetition_filter',
    params: z.object({
      rep_len: num.int().positive().default(10),
      min_ratio: num.default(0),
      max_ratio: num.default(0.5),
    }),
    translate: (a) => ({ n: a.rep_len, minRatio: a.min_ratio, maxRatio: a.max_ratio }),
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
    translate: (a) => ({ n: a.rep_len, minRatio: a.min_ratio, maxRatio: a.max_ratio, ...wordSplitOf(a) }),
    differs: TOKENIZER_DIFFERS,
  },
  special_characters_filter: {
    winnow: 'special_char_ratio_filter',
    params: z.object({ min_ratio: num.default(0), max_ratio: num.default(0.25) }),
    translate: (a) => ({ minRatio: a.min_ratio, maxRatio: a.max_ratio, charset: 'data-juicer' }),
    differs:
      "Data-Juicer's special characters (punctuation, digits, whitespace, a list of symbols); its emoji are the single-code-point pictographs of Unicode's Extended_Pictographic property.",
  },
  flagged_words_filter: {
    winnow: 'flagged_words_filter',
    params: z.object({
      lang,
      tokenization: z.boolean().default(false),
      max_ratio: num.default(0.045),
      flagged_words_dir: z.string().nullable().default(null),
      use_words_aug: z.boolean().default(false),
      words_aug_group_sizes: z.array(num.int().min(2)).default([2]),
      words_aug_join_char: z.string().default(''),
    }),
    translate: (a) => {
      if (a.flagged_words_dir !== null)
        throw new UnsupportedParam(
          'flagged_words_dir',
          "not supported; give Winnow's flagged_words_filter a `file`",
        );
      return {
        words: [],
        lang: djWordListLangs(a.lang as string, FLAGGED_WORD_LANGUAGES),
        maxRatio: a.max_ratio,
        ...wordSplitOf(a),
        ...(a.use_words_aug === true
          ? { wordsAugSizes: a.words_aug_group_sizes, wordsAugJoin: a.words_aug_join_char }
          : {}),
      };
    },
    differs: `The naughty-words list of \`lang\` (LDNOOBW, CC-BY-4.0; \`all\`: every language), not Data-Juicer's downloaded list. ${TOKENIZER_DIFFERS}`,
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
    // The model is read on the first batch: a missing one must stop the recipe before anything is
    // written. The choice is written into the step, so the converted pipeline scores the same way.
    localModel: (p, cwd) => {
      const found = findLm(undefined, String(p.lang), cwd);
      if ('problem' in found) return found;
      return {
        params: { ...p, model: found.kind === 'default' ? 'default' : { path: found.file } },
        note: `perplexity_filter (lang: ${String(p.lang)}) scores with ${describeLm(found)}`,
      };
    },
    differs:
      "Scored by the model Winnow ships for the language (English: a back-off trigram over Qwen3's pieces counted from the Brown Corpus, on Data-Juicer's formula; docs/recipes.md, score calibrations) unless .winnow/models/char-lm-{lang}.json exists under the working folder; not Data-Juicer's downloaded KenLM model, so scores sit near, not on, its scale.",
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
      const ignore = a.ignore_pattern === null ? undefined : jsPattern(a.ignore_pattern as string);
      return defined({
        tokenizer: a.tokenization === 'space' ? 'space' : 'char',
        ignorePattern: ignore,
        window: a.window_size,
        shortText: 'none',
        lowercase: a.lowercase,
        hammingDistance: a.hamming_distance,
        blocks: a.num_blocks,
      });
    },
    differs:
      'A row is dropped when it is near an earlier kept row (no clusters). As in Data-Juicer, `space` splits on spaces only and a text shorter than the window hashes to 0 (all such texts are duplicates).',
  },
};

const MINHASH = CORE_OPS.document_minhash_deduplicator!;

export const DATA_JUICER_OPS: Readonly<Record<string, DjOpTranslation>> = {
  ...CORE_OPS,
  ...DATA_JUICER_MORE_OPS,
  // The Ray executor's MinHash: the same banding and threshold, run by Winnow's near_dedup.
  ray_bts_minhash_deduplicator: {
    ...MINHASH,
    params: MINHASH.params.extend(RAY_BTS_RUNTIME_PARAMS.shape),
    differs: `${MINHASH.differs ?? ''} Runs in one process (near_dedup; docs/scale-out.md for more machines); the Ray knobs (union_find_parallel_num, memory_per_sample…) are accepted and ignored.`,
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
  if (/llm_|_model_/.test(op)) return 'no Winnow analog in this build';
  return undefined;
}
