import { z } from 'zod';
import type { Task } from '../../core/task.ts';
import { wordRepetitionForm } from '../columnar/text-forms.ts';
import { defineOperator, filterRows } from '../operator.ts';
import { asciiGramRepetition } from './ascii-word-grams.ts';
import { djWordReader, needsTokenizer, WordSplitSchema } from './dj-words.ts';
import { TokenizerParamSchema } from './task-tokenizer.ts';
import { readText, TextFieldSchema } from './text-fields.ts';
import { fmtRatio } from './text-stats.ts';
import { wordTokens } from './text-units.ts';
import { repeatedGramsByHash } from './word-gram-counts.ts';

/**
 * Word n-gram repetition: words are text-units.ts's `wordTokens` (lower-cased whitespace tokens
 * with punctuation trimmed from their ends; segmenter words inside CJK/Thai runs); ratio = (sum of counts of n-grams seen more than once) / (total n-grams).
 * 0 when there are fewer than n words.
 */
export function wordRepetitionRatio(text: string, n: number): number {
  // ASCII text: the same words and ratio in one scan, without a string per word (ascii-word-grams.ts).
  const fast = asciiGramRepetition(text, n);
  return fast >= 0 ? fast : repetitionRatioOf(wordTokens(text), n);
}

/** The repetition ratio of a word list (any word model): n-grams seen more than once / all n-grams. */
export function repetitionRatioOf(words: readonly string[], n: number): number {
  const total = words.length - n + 1;
  if (total <= 0) return 0;
  return repeatedGrams(words, n, total) / total;
}

/** How many of the `total` n-grams of `words` occur more than once (each occurrence counted). */
function repeatedGrams(words: readonly string[], n: number, total: number): number {
  // Hashed windows, no string per n-gram (word-gram-counts.ts); strings when it cannot decide.
  const fast = repeatedGramsByHash(words, n, total);
  return fast >= 0 ? fast : repeatedGramsRef(words, n, total);
}

/** The reference: one joined string per n-gram, counted in a Map (exported so tests can compare). */
export function repeatedGramsRef(words: readonly string[], n: number, total: number): number {
  const counts = new Map<string, number>();
  for (let i = 0; i < total; i++) {
    const gram = n === 1 ? words[i]! : words.slice(i, i + n).join(' ');
    counts.set(gram, (counts.get(gram) ?? 0) + 1);
  }
  let repeated = 0;
  for (const f of counts.values()) if (f > 1) repeated += f;
  return repeated;
}

/** The drop reason for a ratio of `repeated` / `total` n-grams, or null (0 n-grams: ratio 0). */
function repetitionVerdict(p: RatioBounds, repeated: number, total: number): string | null {
  return ratioVerdict(p, total <= 0 ? 0 : repeated / total);
}

type RatioBounds = { n: number; minRatio: number; maxRatio: number };

/** Why a repetition ratio drops the task (null: it stays). */
function ratioVerdict(p: RatioBounds, r: number): string | null {
  if (r > p.maxRatio) return `word ${p.n}-gram repetition ratio ${fmtRatio(r)} > maxRatio ${p.maxRatio}`;
  if (r < p.minRatio) return `word ${p.n}-gram repetition ratio ${fmtRatio(r)} < minRatio ${p.minRatio}`;
  return null;
}

const Params = z
  .strictObject({
    field: TextFieldSchema.default('prompt'),
    /** n-gram length in words. */
    n: z.number().int().min(1).default(10),
    /** Rows whose ratio is below this are dropped too (0: no lower bound). */
    minRatio: z.number().min(0).max(1).default(0),
    maxRatio: z.number().min(0).max(1).default(0.5),
    /** How words are split (dj-words.ts); the default is Winnow's segmenter. */
    wordSplit: WordSplitSchema,
    tokenizer: TokenizerParamSchema.optional(),
  })
  .refine(needsTokenizer.check, needsTokenizer.message);

export const wordRepetitionFilterOp = defineOperator<Task, typeof Params>({
  name: 'word_repetition_filter',
  kind: 'filter',
  rowWise: true,
  textOnly: true,
  description: 'Drop tasks whose repeated word n-grams cover more than maxRatio of all word n-grams.',
  params: Params,
  create(p) {
    const verdict = (r: number) => ratioVerdict(p, r);
    const reader =
      p.wordSplit === 'segmenter' ? null : djWordReader(p.wordSplit, p.tokenizer, { lowercase: true });
    // Made once per step, not per batch: see filterRows (operators/operator.ts).
    const judge = (task: Task) => verdict(wordRepetitionRatio(readText(task, p.field), p.n));
    return {
      name: 'word_repetition_filter',
      kind: 'filter',
      async process(batch, ctx) {
        if (reader === null) return filterRows(batch, judge);
        const wordsOf = await reader(ctx);
        return filterRows(batch, (task) => verdict(repetitionRatioOf(wordsOf(readText(task, p.field)), p.n)));
      },
    };
  },
  // Only the segmenter's words have a column-wise form; Data-Juicer's word splits run row-wise.
  columnar: (p) =>
    p.wordSplit !== 'segmenter'
      ? null
      : wordRepetitionForm(p.field, p.n, ([repeated, total]) => repetitionVerdict(p, repeated!, total!)),
});
