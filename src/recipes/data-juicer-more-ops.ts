import { z } from 'zod';
import { CHINESE_CONVERT_MODES } from '../operators/task/chinese-convert.ts';
import { DEFAULT_BAD_SUBSTRINGS } from '../operators/task/remove-words-with-substrings.ts';
import {
  type DjOpTranslation,
  defined,
  lang,
  maxDefault,
  maxOrNone,
  num,
  RECIPE_TOKENIZER,
  UNBOUNDED,
  UnsupportedParam,
} from './data-juicer-op-kit.ts';

/**
 * The LaTeX cleaners of RedPajama's arXiv recipe, the field and suffix filters, token counts and
 * the Ray MinHash deduplicator (issue #37); see data-juicer-ops.ts for the table's shape.
 */
export const DATA_JUICER_MORE_OPS: Readonly<Record<string, DjOpTranslation>> = {
  remove_words_with_incorrect_substrings_mapper: {
    winnow: 'remove_words_with_substrings',
    params: z.object({
      lang,
      tokenization: z.boolean().default(false),
      substrings: z.array(z.string().min(1)).nullable().default(null),
    }),
    translate: (a) => {
      if (a.tokenization === true)
        throw new UnsupportedParam(
          'tokenization',
          'true glues the kept sentencepiece pieces together without spaces in Data-Juicer; use false',
        );
      return { substrings: (a.substrings as string[] | null) ?? [...DEFAULT_BAD_SUBSTRINGS] };
    },
  },
  remove_header_mapper: {
    winnow: 'remove_latex_header',
    params: z.object({ drop_no_head: z.boolean().default(true) }),
    translate: (a) => ({ dropNoHeader: a.drop_no_head }),
    differs:
      "drop_no_head empties a text without a sectioning command, as documented (Data-Juicer's code leaves it as it is); \\paragraph and \\subparagraph each count on their own.",
  },
  remove_comments_mapper: {
    winnow: 'remove_latex_comments',
    params: z.object({
      doc_type: z.union([z.string(), z.array(z.string())]).default('tex'),
      inline: z.boolean().default(true),
      multiline: z.boolean().default(true),
    }),
    translate: (a) => ({ inline: a.inline, multiline: a.multiline }),
  },
  chinese_convert_mapper: {
    winnow: 'chinese_convert',
    params: z.object({ mode: z.string().default('s2t') }),
    translate: (a) => {
      const mode = a.mode as string;
      if (!Object.hasOwn(CHINESE_CONVERT_MODES, mode))
        throw new UnsupportedParam(
          'mode',
          `'${mode}' is not one of OpenCC's modes (${Object.keys(CHINESE_CONVERT_MODES).join(', ')})`,
        );
      return { mode };
    },
    differs:
      "OpenCC's tables as opencc-js ships them (without OpenCC's rare extension-character Traditional→Simplified mappings).",
  },
  remove_bibliography_mapper: {
    winnow: 'remove_bibliography',
    params: z.object({}),
    translate: () => ({}),
  },
  expand_macro_mapper: {
    winnow: 'expand_latex_macros',
    params: z.object({}),
    translate: () => ({}),
    differs: 'A macro value with non-ASCII characters is inserted as it is (Data-Juicer fails on it).',
  },
  remove_table_text_mapper: {
    winnow: 'remove_table_text',
    params: z.object({
      min_col: num.int().min(2).max(20).default(2),
      max_col: num.int().min(2).max(20).default(20),
    }),
    translate: (a) => ({ minCol: a.min_col, maxCol: a.max_col }),
  },
  suffix_filter: {
    winnow: 'suffix_filter',
    params: z.object({
      suffixes: z
        .union([z.string(), z.array(z.string())])
        .nullable()
        .default([]),
    }),
    // `missing` (the input file's suffix) is filled in by translate-recipe.ts, which knows the files.
    translate: (a) => ({
      suffixes: a.suffixes === null ? [] : typeof a.suffixes === 'string' ? [a.suffixes] : a.suffixes,
    }),
    differs:
      "A row's suffix is its __dj__suffix__ field when it has one, else its input file's (.jsonl for a JSON Lines file), as in Data-Juicer.",
  },
  specified_field_filter: {
    winnow: 'field_value_filter',
    params: z.object({ field_key: z.string().default(''), target_value: z.array(z.json()).default([]) }),
    translate: (a) => defined({ field: fieldPath(a.field_key as string), values: a.target_value }),
    differs: 'A row without the field is dropped (Data-Juicer stops with an error).',
  },
  specified_numeric_field_filter: {
    winnow: 'field_range_filter',
    params: z.object({
      field_key: z.string().default(''),
      min_value: num.default(-Number.MAX_SAFE_INTEGER),
      max_value: maxDefault,
    }),
    translate: (a) =>
      defined({
        field: fieldPath(a.field_key as string),
        min: (a.min_value as number) > -UNBOUNDED ? a.min_value : undefined,
        max: maxOrNone(a.max_value),
      }),
    differs: 'A value of 0 is a number here (Data-Juicer drops rows whose value is 0, empty or false).',
  },
  token_num_filter: {
    winnow: 'token_length_filter',
    params: z.object({
      hf_tokenizer: z.string().default('EleutherAI/pythia-6.9b-deduped'),
      min_num: num.int().nonnegative().default(10),
      max_num: maxDefault,
    }),
    translate: (a) =>
      defined({ tokenizer: RECIPE_TOKENIZER, minTokens: a.min_num, maxTokens: maxOrNone(a.max_num) }),
    differs:
      "Tokens of Qwen3's tokenizer (shipped with Winnow), whatever hf_tokenizer names: counts differ from Pythia's by a few percent.",
  },
};

/** Data-Juicer's dotted field_key as a Winnow task path (the row's fields are under meta). */
function fieldPath(key: string): string | undefined {
  return key === '' ? undefined : `meta.${key}`;
}

/** Data-Juicer's Ray-only knobs of ray_bts_minhash_deduplicator: they change how, not what, it keeps. */
export const RAY_BTS_RUNTIME_PARAMS = z.object({
  union_find_parallel_num: z.union([num.int().positive(), z.literal('auto')]).optional(),
  union_threshold: num.int().positive().nullable().optional(),
  max_pending_edge_buffer_task: num.int().positive().nullable().optional(),
  num_edge_buffer_task_returns: num.int().positive().nullable().optional(),
  max_pending_filter_tasks: num.int().positive().nullable().optional(),
  num_filter_task_returns: num.int().positive().nullable().optional(),
  merge_batch_size: num.int().positive().nullable().optional(),
  minhash_batch_size: z
    .union([num.int().positive(), z.literal('auto')])
    .nullable()
    .optional(),
  memory_per_sample: num.positive().nullable().optional(),
});
