import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { ConfigError, errorMessage } from '../../core/errors.ts';
import type { Task } from '../../core/task.ts';
import { defineOperator, filterRows, type Operator } from '../operator.ts';
import { djWordReader, needsTokenizer, WordSplitSchema } from './dj-words.ts';
import { FlaggedWordMatcher } from './flagged-word-matcher.ts';
import { TokenizerParamSchema } from './task-tokenizer.ts';
import { readText, TextFieldSchema } from './text-fields.ts';
import { countWords, fmtRatio } from './text-stats.ts';
import { FLAGGED_WORD_LANGUAGES, flaggedWordList } from './word-lists.ts';

export { FlaggedWordMatcher } from './flagged-word-matcher.ts';

/**
 * A deliberately tiny, neutral default: placeholder text and common spam markers. Real
 * pipelines supply their own list (`words`, or `file` with one entry per line).
 */
export const DEFAULT_FLAGGED_WORDS: readonly string[] = [
  'lorem',
  'ipsum',
  'click here',
  'buy now',
  'act now',
  'limited time offer',
  'free money',
  'unsubscribe',
];

/** Read a newline-separated list; blank lines and lines starting with `#` are ignored. */
export function parseWordList(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l.length > 0 && !l.startsWith('#'));
}

const Params = z
  .strictObject({
    field: TextFieldSchema.default('prompt'),
    words: z.array(z.string()).default([...DEFAULT_FLAGGED_WORDS]),
    /** Languages whose naughty-words list to add (word-lists.ts; `en`, `zh`, `ja`… 26 languages). */
    lang: z.array(z.enum(FLAGGED_WORD_LANGUAGES)).default([]),
    /** A newline-separated list (relative to the working directory); merged with `words`. */
    file: z.string().min(1).optional(),
    /** Most flagged occurrences allowed. When neither limit is given, one occurrence drops the task. */
    maxCount: z.number().int().nonnegative().optional(),
    /** Most flagged occurrences per word allowed (words as text-units.ts counts them: CJK runs are split). */
    maxRatio: z.number().min(0).max(1).optional(),
    /**
     * How words are found (dj-words.ts). 'segmenter' (default): FlaggedWordMatcher (whole words,
     * CJK by segmenter words). 'whitespace' or 'tokenizer' (Data-Juicer's tokenization false/true):
     * each refined word is looked up in the list as a whole, and the ratio is flagged words / words.
     */
    wordSplit: WordSplitSchema,
    tokenizer: TokenizerParamSchema.optional(),
    /** With words other than 'segmenter': also count runs of this many adjacent words, joined by `wordsAugJoin` (Data-Juicer's use_words_aug). */
    wordsAugSizes: z.array(z.number().int().min(2)).default([]),
    wordsAugJoin: z.string().default(''),
  })
  .refine(needsTokenizer.check, needsTokenizer.message);

function listed(found: string[]): string {
  const distinct = [...new Set(found)];
  return distinct.length > 5 ? `${distinct.slice(0, 5).join(', ')}, …` : distinct.join(', ');
}

export const flaggedWordsFilterOp = defineOperator<Task, typeof Params>({
  name: 'flagged_words_filter',
  kind: 'filter',
  rowWise: true,
  textOnly: true,
  description:
    'Drop tasks containing listed words/phrases (whole words, case-insensitive) above a count or ratio.',
  params: Params,
  create(p) {
    const entries = [...p.words, ...p.lang.flatMap((l) => flaggedWordList(l))];
    if (p.file !== undefined) {
      try {
        entries.push(...parseWordList(readFileSync(p.file, 'utf8')));
      } catch (err) {
        throw new ConfigError({
          path: 'params.file',
          message: `cannot read the flagged-words list '${p.file}': ${errorMessage(err)}`,
          hint: 'a text file with one word or phrase per line',
        });
      }
    }
    const maxCount = p.maxCount ?? (p.maxRatio === undefined ? 0 : undefined);
    if (p.wordSplit !== 'segmenter') return djFlaggedWords(p, p.wordSplit, entries, maxCount);
    const matcher = new FlaggedWordMatcher(entries);
    return {
      name: 'flagged_words_filter',
      kind: 'filter',
      process(batch) {
        return filterRows(batch, (task) => {
          const text = readText(task, p.field);
          const found = matcher.matches(text);
          if (found.length === 0) return null;
          if (maxCount !== undefined && found.length > maxCount)
            return `flagged words: ${found.length} > maxCount ${maxCount} (${listed(found)})`;
          if (p.maxRatio !== undefined) {
            const words = countWords(text);
            const ratio = words === 0 ? 0 : found.length / words;
            if (ratio > p.maxRatio)
              return `flagged-word ratio ${fmtRatio(ratio)} > maxRatio ${p.maxRatio} (${listed(found)})`;
          }
          return null;
        });
      },
    };
  },
});

type FlaggedParams = z.output<typeof Params>;

/** Data-Juicer's way: every refined word (and augmented run) looked up whole in the list. */
function djFlaggedWords(
  p: FlaggedParams,
  mode: 'whitespace' | 'tokenizer',
  entries: readonly string[],
  maxCount: number | undefined,
): Operator<Task> {
  const flagged = new Set(entries.map((w) => w.trim().toLowerCase()).filter((w) => w.length > 0));
  const reader = djWordReader(mode, p.tokenizer, {
    lowercase: true,
    augSizes: p.wordsAugSizes,
    augJoin: p.wordsAugJoin,
  });
  return {
    name: 'flagged_words_filter',
    kind: 'filter',
    async process(batch, ctx) {
      const wordsOf = await reader(ctx);
      return filterRows(batch, (task) => {
        const words = wordsOf(readText(task, p.field));
        const found = words.filter((w) => flagged.has(w));
        if (found.length === 0) return null;
        if (maxCount !== undefined && found.length > maxCount)
          return `flagged words: ${found.length} > maxCount ${maxCount} (${listed(found)})`;
        const ratio = found.length / words.length;
        if (p.maxRatio !== undefined && ratio > p.maxRatio)
          return `flagged-word ratio ${fmtRatio(ratio)} > maxRatio ${p.maxRatio} (${listed(found)})`;
        return null;
      });
    },
  };
}
