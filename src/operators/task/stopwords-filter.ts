import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { ConfigError, errorMessage } from '../../core/errors.ts';
import type { Task } from '../../core/task.ts';
import { defineOperator, filterRows } from '../operator.ts';
import { parseWordList } from './flagged-words-filter.ts';
import { readText, TextFieldSchema } from './text-fields.ts';
import { fmtRatio } from './text-stats.ts';
import { wordTokens } from './text-units.ts';

/** Languages with a stopword list in datasets/wordlists/stopwords (see its README for sources). */
export const STOPWORD_LANGS = ['en', 'zh', 'ja'] as const;

/** The shipped stopword list of a language, lower-cased. */
export function shippedStopwords(lang: (typeof STOPWORD_LANGS)[number]): string[] {
  const file = fileURLToPath(new URL(`../../../datasets/wordlists/stopwords/${lang}.txt`, import.meta.url));
  return parseWordList(readFileSync(file, 'utf8'));
}

/** Share of the text's words (text-units.ts) that are stopwords; 0 for a text without words. */
export function stopwordRatio(text: string, stopwords: ReadonlySet<string>): number {
  const words = wordTokens(text);
  if (words.length === 0) return 0;
  let n = 0;
  for (const w of words) if (stopwords.has(w)) n++;
  return n / words.length;
}

const Params = z.strictObject({
  field: TextFieldSchema.default('prompt'),
  /** Shipped lists to use (merged). Use [] with `words`/`file` for your own list only. */
  lang: z.array(z.enum(STOPWORD_LANGS)).default([...STOPWORD_LANGS]),
  words: z.array(z.string()).default([]),
  /** A newline-separated list (relative to the working directory); merged with the rest. */
  file: z.string().min(1).optional(),
  /** Keep tasks whose stopword ratio is at least this (natural prose has many function words). */
  minRatio: z.number().min(0).max(1).default(0.3),
});

export const stopwordsFilterOp = defineOperator<Task, typeof Params>({
  name: 'stopwords_filter',
  kind: 'filter',
  rowWise: true,
  textOnly: true,
  description: 'Drop tasks whose share of stopwords (en/zh/ja lists shipped, or your own) is below minRatio.',
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
    return {
      name: 'stopwords_filter',
      kind: 'filter',
      process(batch) {
        return filterRows(batch, (task) => {
          const r = stopwordRatio(readText(task, p.field), stopwords);
          return r < p.minRatio ? `stopword ratio ${fmtRatio(r)} < minRatio ${p.minRatio}` : null;
        });
      },
    };
  },
});
