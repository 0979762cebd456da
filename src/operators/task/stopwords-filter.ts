import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { ConfigError, errorMessage } from '../../core/errors.ts';
import type { Task } from '../../core/task.ts';
import { defineOperator, filterRows } from '../operator.ts';
import { djWordReader, needsTokenizer, WordSplitSchema } from './dj-words.ts';
import { parseWordList } from './flagged-words-filter.ts';
import { TokenizerParamSchema } from './task-tokenizer.ts';
import { readText, TextFieldSchema } from './text-fields.ts';
import { fmtRatio } from './text-stats.ts';
import { UNSPACED_SCRIPT, wordTokens } from './text-units.ts';
import { isoStopwords, STOPWORD_LANGUAGES, type StopwordLanguage } from './word-lists.ts';

/** Languages with a list Winnow wrote as Intl.Segmenter splits words (datasets/wordlists/stopwords). */
const SEGMENTER_LISTS: ReadonlySet<string> = new Set(['en', 'zh', 'ja']);

/**
 * The stopword list of a language, lower-cased: stopwords-iso's (word-lists.ts), plus, for en, zh
 * and ja, Winnow's own short list of the pieces the segmenter splits off (particles, auxiliaries).
 */
export function shippedStopwords(lang: StopwordLanguage): string[] {
  const own = SEGMENTER_LISTS.has(lang)
    ? parseWordList(
        readFileSync(
          fileURLToPath(new URL(`../../../datasets/wordlists/stopwords/${lang}.txt`, import.meta.url)),
          'utf8',
        ),
      )
    : [];
  return [
    ...new Set([...isoStopwords(lang), ...own].map((w) => w.trim().toLowerCase()).filter((w) => w !== '')),
  ];
}

/**
 * A Chinese/Japanese/Thai word the segmenter glued together from stopwords (`了一`, `的是`,
 * `都很`, `ました`) counts as one: split into pieces that are all stopwords.
 */
function gluedStopwords(word: string, stopwords: ReadonlySet<string>): boolean {
  if (!UNSPACED_SCRIPT.test(word)) return false;
  const n = word.length;
  const reach = new Uint8Array(n + 1);
  reach[0] = 1;
  for (let end = 1; end <= n; end++)
    for (let start = end - 1; start >= 0 && !reach[end]; start--)
      if (reach[start] && stopwords.has(word.slice(start, end))) reach[end] = 1;
  return reach[n] === 1;
}

/**
 * Share of the text's words (text-units.ts) that are stopwords; 0 for a text without words. In
 * scripts without spaces a segmenter word made only of stopwords counts too (gluedStopwords).
 */
export function stopwordRatio(text: string, stopwords: ReadonlySet<string>): number {
  return shareIn(wordTokens(text), stopwords);
}

/**
 * Share of `words` that are stopwords; 0 for no words. A Chinese/Japanese/Thai word glued from
 * stopwords counts, whichever split made it: Qwen3's pieces glue them as the segmenter does
 * (`的是`, `我们在`), and without this 14 of 16 clean Chinese paragraphs fall under 0.3.
 */
export function shareIn(words: readonly string[], stopwords: ReadonlySet<string>): number {
  if (words.length === 0) return 0;
  let n = 0;
  for (const w of words) if (stopwords.has(w) || gluedStopwords(w, stopwords)) n++;
  return n / words.length;
}

const Params = z
  .strictObject({
    field: TextFieldSchema.default('prompt'),
    /** Languages whose lists to use (merged; stopwords-iso's 58). Use [] with `words`/`file` for your own list only. */
    lang: z.array(z.enum(STOPWORD_LANGUAGES)).default(['en', 'zh', 'ja']),
    words: z.array(z.string()).default([]),
    /** A newline-separated list (relative to the working directory); merged with the rest. */
    file: z.string().min(1).optional(),
    /** Keep tasks whose stopword ratio is at least this (natural prose has many function words). */
    minRatio: z.number().min(0).max(1).default(0.3),
    /** How words are found (dj-words.ts): Winnow's segmenter, or Data-Juicer's whitespace/tokenizer words. */
    wordSplit: WordSplitSchema,
    tokenizer: TokenizerParamSchema.optional(),
  })
  .refine(needsTokenizer.check, needsTokenizer.message);

export const stopwordsFilterOp = defineOperator<Task, typeof Params>({
  name: 'stopwords_filter',
  kind: 'filter',
  rowWise: true,
  textOnly: true,
  description:
    'Drop tasks whose share of stopwords (stopwords-iso lists of 58 languages, or your own) is below minRatio.',
  params: Params,
  create(p) {
    const entries = [...p.words, ...p.lang.flatMap((l) => shippedStopwords(l))];
    if (p.file !== undefined) {
      try {
        entries.push(...parseWordList(readFileSync(p.file, 'utf8')));
      } catch (err) {
        throw new ConfigError({
          path: 'params.file',
          message: `cannot read the stopword list '${p.file}': ${errorMessage(err)}`,
          hint: 'a text file with one word per line',
        });
      }
    }
    const stopwords = new Set(entries.map((w) => w.trim().toLowerCase()).filter((w) => w.length > 0));
    const reader =
      p.wordSplit === 'segmenter' ? null : djWordReader(p.wordSplit, p.tokenizer, { lowercase: true });
    return {
      name: 'stopwords_filter',
      kind: 'filter',
      async process(batch, ctx) {
        const wordsOf = reader === null ? null : await reader(ctx);
        return filterRows(batch, (task) => {
          const text = readText(task, p.field);
          const r = wordsOf === null ? stopwordRatio(text, stopwords) : shareIn(wordsOf(text), stopwords);
          return r < p.minRatio ? `stopword ratio ${fmtRatio(r)} < minRatio ${p.minRatio}` : null;
        });
      },
    };
  },
});
