import { z } from 'zod';
import type { Task } from '../../core/task.ts';
import { countsFilter } from '../columnar/text-forms.ts';
import { defineOperator, filterRows } from '../operator.ts';
import { djWordReader, needsTokenizer, WordSplitSchema } from './dj-words.ts';
import { TokenizerParamSchema } from './task-tokenizer.ts';
import { filterPass, readText, TextFieldSchema } from './text-fields.ts';
import { textProfile } from './text-profile.ts';
import { countChars, countWords } from './text-stats.ts';

const Limit = z.number().int().nonnegative().optional();

const Params = z
  .strictObject({
    field: TextFieldSchema.default('prompt'),
    minChars: Limit,
    maxChars: Limit,
    minWords: Limit,
    maxWords: Limit,
    /** How words are counted (dj-words.ts); the default is Winnow's segmenter. */
    wordSplit: WordSplitSchema,
    /** With words: tokenizer, the tokenizer whose pieces are the words. */
    tokenizer: TokenizerParamSchema.optional(),
  })
  .refine(needsTokenizer.check, needsTokenizer.message)
  .refine((p) => p.minChars === undefined || p.maxChars === undefined || p.minChars <= p.maxChars, {
    message: 'minChars must not exceed maxChars',
    path: ['minChars'],
  })
  .refine((p) => p.minWords === undefined || p.maxWords === undefined || p.minWords <= p.maxWords, {
    message: 'minWords must not exceed maxWords',
    path: ['minWords'],
  });

export const lengthFilterOp = defineOperator<Task, typeof Params>({
  name: 'length_filter',
  kind: 'filter',
  rowWise: true,
  textOnly: true,
  description:
    'Keep tasks whose text has between min and max characters and/or words (any subset of limits).',
  params: Params,
  create(p) {
    const verdict = (chars: number, words: number) => lengthVerdict(p, chars, words);
    const countsChars = p.minChars !== undefined || p.maxChars !== undefined;
    const countsWords = p.minWords !== undefined || p.maxWords !== undefined;
    if (p.wordSplit !== 'segmenter') {
      // Data-Juicer's words: whitespace or tokenizer pieces, special characters stripped.
      const reader = djWordReader(p.wordSplit, p.tokenizer, { lowercase: false });
      return {
        name: 'length_filter',
        kind: 'filter',
        async process(batch, ctx) {
          const wordsOf = await reader(ctx);
          return filterRows(batch, (task) => {
            const text = readText(task, p.field);
            return verdict(countsChars ? countChars(text) : 0, countsWords ? wordsOf(text).length : 0);
          });
        },
      };
    }
    // Made once per step, not per batch: see filterRows (operators/operator.ts).
    const judge = (task: Task) => {
      const text = readText(task, p.field);
      // An ASCII text's counts come from the profile the chain keeps on the task.
      const profile = textProfile(task, text);
      // Only what a limit asks for is counted (the counts of a non-ASCII text take a scan each).
      const chars = !countsChars ? 0 : profile !== null ? text.length : countChars(text);
      const words = !countsWords ? 0 : profile !== null ? profile.words : countWords(text);
      return verdict(chars, words);
    };
    return {
      name: 'length_filter',
      kind: 'filter',
      profilePass: filterPass(p.field, (profile) => verdict(profile.text.length, profile.words) === null),
      process(batch) {
        return filterRows(batch, judge);
      },
    };
  },
  columnar: (p) => {
    const counts: Array<'chars' | 'words'> = [];
    if (p.minChars !== undefined || p.maxChars !== undefined) counts.push('chars');
    if (p.minWords !== undefined || p.maxWords !== undefined) counts.push('words');
    const at = (k: 'chars' | 'words', v: readonly number[]) =>
      counts.includes(k) ? v[counts.indexOf(k)]! : 0;
    return countsFilter(p.field, counts, (v) => lengthVerdict(p, at('chars', v), at('words', v)));
  },
});

/** Why a text of `chars` characters and `words` words is dropped, or null. */
function lengthVerdict(p: z.output<typeof Params>, chars: number, words: number): string | null {
  if (p.minChars !== undefined && chars < p.minChars)
    return `too short: ${chars} chars < minChars ${p.minChars}`;
  if (p.maxChars !== undefined && chars > p.maxChars)
    return `too long: ${chars} chars > maxChars ${p.maxChars}`;
  if (p.minWords !== undefined && words < p.minWords)
    return `too few words: ${words} < minWords ${p.minWords}`;
  if (p.maxWords !== undefined && words > p.maxWords)
    return `too many words: ${words} > maxWords ${p.maxWords}`;
  return null;
}
