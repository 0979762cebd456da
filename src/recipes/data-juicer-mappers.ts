import { z } from 'zod';
import { STOPWORD_LANGUAGES } from '../operators/task/word-lists.ts';
import {
  type DjOpTranslation,
  defined,
  djWordListLangs,
  lang,
  maxDefault,
  maxOrNone,
  noPattern,
  num,
  UnsupportedParam,
  wordSplitOf,
} from './data-juicer-op-kit.ts';

/** Data-Juicer's mappers (and the text filters that landed with them) → Winnow operators; see data-juicer-ops.ts. */
export const DATA_JUICER_MAPPERS: Readonly<Record<string, DjOpTranslation>> = {
  whitespace_normalization_mapper: {
    winnow: 'normalize_whitespace',
    params: z.object({}),
    translate: () => ({ newlines: 'keep' }),
    differs:
      'Winnow also collapses runs of spaces, trims every line and merges runs of blank lines; Data-Juicer only replaces each odd space with one space and strips the ends.',
  },
  punctuation_normalization_mapper: {
    winnow: 'normalize_punctuation',
    params: z.object({}),
    translate: () => ({}),
  },
  fix_unicode_mapper: {
    winnow: 'fix_mojibake',
    params: z.object({ normalization: z.enum(['NFC', 'NFKC', 'NFD', 'NFKD']).nullable().default(null) }),
    translate: (a) => {
      if (a.normalization !== null)
        throw new UnsupportedParam(
          'normalization',
          'not supported: add a normalize_unicode step to the converted pipeline (winnow convert)',
        );
      return { uncurlQuotes: true };
    },
    differs:
      "Repairs mojibake (every layer) and straightens curly quotes as ftfy does; ftfy's other fixes (NFC, ligatures, full-width letters, control characters) are not applied.",
  },
  clean_html_mapper: {
    winnow: 'strip_html',
    params: z.object({}),
    translate: () => ({}),
    differs: 'Block tags become paragraph breaks and unknown tags are kept, so `a<x and y>b` survives.',
  },
  clean_email_mapper: {
    winnow: 'remove_urls_emails',
    params: z.object({ pattern: z.string().nullable().default(null), repl: z.string().default('') }),
    translate: (a) => {
      noPattern(a);
      return { urls: false, emails: true, replacement: a.repl };
    },
  },
  clean_links_mapper: {
    winnow: 'remove_urls_emails',
    params: z.object({ pattern: z.string().nullable().default(null), repl: z.string().default('') }),
    translate: (a) => {
      noPattern(a);
      return { urls: true, emails: false, replacement: a.repl };
    },
    differs: 'Bare domains (example.com) are not links; http://, https://, ftp:// and www. are.',
  },
  clean_ip_mapper: {
    winnow: 'remove_ip_addresses',
    params: z.object({ pattern: z.string().nullable().default(null), repl: z.string().default('') }),
    translate: (a) => {
      noPattern(a);
      return { replacement: a.repl };
    },
  },
  clean_copyright_mapper: {
    winnow: 'remove_copyright_headers',
    params: z.object({}),
    translate: () => ({ rule: 'data_juicer' }),
  },
  remove_long_words_mapper: {
    winnow: 'remove_long_words',
    params: z.object({ min_len: num.int().nonnegative().default(1), max_len: maxDefault }),
    translate: (a) => defined({ minLen: a.min_len, maxLen: maxOrNone(a.max_len) }),
  },
  remove_repeat_sentences_mapper: {
    winnow: 'remove_repeat_sentences',
    params: z.object({
      lowercase: z.boolean().default(false),
      ignore_special_character: z.boolean().default(true),
      min_repeat_sentence_length: num.int().min(1).default(2),
    }),
    translate: (a) => ({
      lowercase: a.lowercase,
      ignoreSpecialCharacters: a.ignore_special_character,
      minRepeatSentenceLength: a.min_repeat_sentence_length,
    }),
  },
  replace_content_mapper: {
    winnow: 'replace_content',
    params: z.object({
      pattern: z
        .union([z.string(), z.array(z.string())])
        .nullable()
        .default(null),
      repl: z.union([z.string(), z.array(z.string())]).default(''),
    }),
    translate: (a) => ({
      patterns: a.pattern === null ? [] : Array.isArray(a.pattern) ? a.pattern : [a.pattern],
      replacement: a.repl,
    }),
    differs:
      'Patterns are JavaScript regular expressions (Unicode mode); most Python patterns read the same.',
  },
  remove_specific_chars_mapper: {
    winnow: 'replace_content',
    params: z.object({ chars_to_remove: z.string().default('◆●■►▼▲▴∆▻▷❖♡□') }),
    translate: (a) => {
      const chars = [...(a.chars_to_remove as string)];
      if (chars.length === 0) return { patterns: [] };
      return {
        patterns: [`[${chars.map((c) => c.replace(/[\\\][^-]/g, '\\$&')).join('')}]`],
        replacement: '',
      };
    },
  },
  stopwords_filter: {
    winnow: 'stopwords_filter',
    params: z.object({
      lang,
      tokenization: z.boolean().default(false),
      min_ratio: num.default(0.3),
      stopwords_dir: z.string().nullable().default(null),
      use_words_aug: z.literal(false).default(false),
    }),
    translate: (a) => {
      if (a.stopwords_dir !== null)
        throw new UnsupportedParam('stopwords_dir', "not supported; give Winnow's stopwords_filter a `file`");
      return {
        lang: djWordListLangs(a.lang as string, STOPWORD_LANGUAGES),
        minRatio: a.min_ratio,
        ...wordSplitOf(a),
      };
    },
    differs:
      "stopwords-iso's list of `lang` (MIT, 58 languages; `all`: every one), not Data-Juicer's downloaded one; in Chinese, Japanese and Thai a segmenter word made of stopwords counts as one.",
  },
  average_line_length_filter: {
    winnow: 'line_length_filter',
    params: z.object({ min_len: num.nonnegative().default(10), max_len: maxDefault }),
    translate: (a) => defined({ minAverage: a.min_len, maxAverage: maxOrNone(a.max_len) }),
  },
  maximum_line_length_filter: {
    winnow: 'line_length_filter',
    params: z.object({ min_len: num.nonnegative().default(10), max_len: maxDefault }),
    translate: (a) => defined({ minMaximum: a.min_len, maxMaximum: maxOrNone(a.max_len) }),
  },
  sentence_split_mapper: {
    winnow: 'sentence_split',
    params: z.object({ lang }),
    translate: () => ({ separator: '\n' }),
    differs:
      'Sentences come from the script-aware segmenter for every language; lang is accepted and not needed.',
  },
  text_chunk_mapper: {
    winnow: 'chunk_text',
    params: z.object({
      max_len: num.int().positive().nullable().default(null),
      split_pattern: z.string().nullable().default('\n\n'),
      overlap_len: num.int().nonnegative().default(0),
      tokenizer: z.string().nullable().default(null),
      trust_remote_code: z.boolean().default(false),
    }),
    translate: (a) => {
      if (a.tokenizer !== null)
        throw new UnsupportedParam(
          'tokenizer',
          'chunk lengths in tokens are not supported (characters only)',
        );
      return defined({
        maxLen: a.max_len ?? Number.MAX_SAFE_INTEGER,
        splitPattern: a.split_pattern ?? undefined,
        overlap: a.overlap_len,
      });
    },
  },
  language_id_score_filter: {
    winnow: 'language_id_filter',
    params: z.object({
      lang: z.union([z.string(), z.array(z.string())]).default(''),
      min_score: num.min(0).max(1).default(0.8),
    }),
    translate: (a) => ({
      languages: Array.isArray(a.lang) ? a.lang : a.lang === '' ? [] : [a.lang],
      minScore: a.min_score,
      annotate: false,
    }),
    differs:
      "The score is ELD's, calibrated onto fastText's probability scale (docs/recipes.md, score calibrations), so min_score keeps what it keeps in Data-Juicer.",
  },
};
