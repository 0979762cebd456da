import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { ConfigError, errorMessage } from '../../core/errors.ts';
import type { Task } from '../../core/task.ts';
import { defineOperator, filterRows } from '../operator.ts';
import { readText, TextFieldSchema } from './text-fields.ts';
import { countWords, fmtRatio } from './text-stats.ts';
import { UNSPACED_SCRIPT } from './text-units.ts';

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

const WORD_RUN = /[\p{L}\p{N}_]+/gu;
/**
 * Entries in these scripts match as substrings: Chinese, Japanese and Thai have no spaces
 * between words, and Korean attaches particles to the word (`욕설을` holds `욕설`).
 */
const SUBSTRING_SCRIPT = new RegExp(`${UNSPACED_SCRIPT.source}|\\p{Script=Hangul}`, 'u');
const SINGLE_WORD = /^[\p{L}\p{N}_]+$/u;

/** Read a newline-separated list; blank lines and lines starting with `#` are ignored. */
export function parseWordList(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l.length > 0 && !l.startsWith('#'));
}

/**
 * Finds list entries in text: whole words only (an entry never matches inside a longer word),
 * case-insensitive; multi-word entries match across any whitespace. An entry written in a script
 * without spaces between words (Chinese, Japanese, Thai…) matches anywhere, as a substring: there
 * is no word boundary to wait for (`卖淫` is found in `你是个卖淫女`); so does a Korean entry, since
 * particles attach to the word it names.
 */
export class FlaggedWordMatcher {
  private readonly singles: Set<string>;
  private readonly phrases: RegExp | null;
  private readonly unspaced: string[];

  constructor(entries: readonly string[]) {
    const all = [...new Set(entries.map((w) => w.trim().toLowerCase()).filter((w) => w.length > 0))];
    this.unspaced = all.filter((w) => SUBSTRING_SCRIPT.test(w));
    const words = all.filter((w) => !SUBSTRING_SCRIPT.test(w));
    this.singles = new Set(words.filter((w) => SINGLE_WORD.test(w)));
    const phrases = words
      .filter((w) => !SINGLE_WORD.test(w))
      .map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/\s+/g, '\\s+'));
    this.phrases =
      phrases.length === 0
        ? null
        : new RegExp(`(?<![\\p{L}\\p{N}_])(?:${phrases.join('|')})(?![\\p{L}\\p{N}_])`, 'giu');
  }

  /** Every match, lower-cased, in order of appearance within each kind (words, phrases, unspaced-script entries). */
  matches(text: string): string[] {
    const found: string[] = [];
    const lower = text.toLowerCase();
    if (this.singles.size > 0)
      for (const m of lower.matchAll(WORD_RUN)) if (this.singles.has(m[0])) found.push(m[0]);
    if (this.phrases) for (const m of lower.matchAll(this.phrases)) found.push(m[0].replace(/\s+/g, ' '));
    for (const entry of this.unspaced) {
      // Non-overlapping occurrences, left to right.
      for (let at = lower.indexOf(entry); at >= 0; at = lower.indexOf(entry, at + entry.length))
        found.push(entry);
    }
    return found;
  }
}

const Params = z.strictObject({
  field: TextFieldSchema.default('prompt'),
  words: z.array(z.string()).default([...DEFAULT_FLAGGED_WORDS]),
  /** A newline-separated list (relative to the working directory); merged with `words`. */
  file: z.string().min(1).optional(),
  /** Most flagged occurrences allowed. When neither limit is given, one occurrence drops the task. */
  maxCount: z.number().int().nonnegative().optional(),
  /** Most flagged occurrences per word allowed (words as text-units.ts counts them: CJK runs are split). */
  maxRatio: z.number().min(0).max(1).optional(),
});

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
    const entries = [...p.words];
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
    const matcher = new FlaggedWordMatcher(entries);
    const maxCount = p.maxCount ?? (p.maxRatio === undefined ? 0 : undefined);
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
