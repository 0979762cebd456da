import { z } from 'zod';
import type { Task } from '../../core/task.ts';
import { defineOperator } from '../operator.ts';
import { mapTextBatch, TextFieldSchema } from './text-fields.ts';
import { countChars } from './text-stats.ts';
import { sentenceSegments } from './text-units.ts';

export interface RepeatSentenceOptions {
  lowercase: boolean;
  /** Compare sentences with everything but letters and digits removed. */
  ignoreSpecialCharacters: boolean;
  /** Sentences shorter than this (in characters, after the comparison form) are never removed. */
  minRepeatSentenceLength: number;
}

const NOT_ALNUM = /[^\p{L}\p{N}]+/gu;

/**
 * Keep the first occurrence of each sentence and remove later repeats, within one text. Lines
 * stay lines; a line whose every sentence was a repeat is removed; blank lines stay.
 */
export function removeRepeatSentences(text: string, o: RepeatSentenceOptions): string {
  const seen = new Set<string>();
  const out: string[] = [];
  let changed = false;
  for (const line of text.split('\n')) {
    if (line.trim().length === 0) {
      out.push(line);
      continue;
    }
    let kept = '';
    for (const seg of sentenceSegments(line)) {
      let key = seg.trim();
      if (o.lowercase) key = key.toLowerCase();
      if (o.ignoreSpecialCharacters) key = key.replace(NOT_ALNUM, '');
      if (countChars(key) < o.minRepeatSentenceLength) kept += seg;
      else if (seen.has(key)) changed = true;
      else {
        seen.add(key);
        kept += seg;
      }
    }
    if (kept.trim().length > 0) out.push(kept.trimEnd());
  }
  return changed ? out.join('\n') : text;
}

const Params = z.strictObject({
  field: TextFieldSchema.default('prompt'),
  lowercase: z.boolean().default(false),
  ignoreSpecialCharacters: z.boolean().default(true),
  minRepeatSentenceLength: z.number().int().min(1).default(2),
});

export const removeRepeatSentencesOp = defineOperator<Task, typeof Params>({
  name: 'remove_repeat_sentences',
  kind: 'map',
  rowWise: true,
  textOnly: true,
  description:
    'Remove sentences that repeat an earlier sentence of the same text (first occurrence kept; CJK-aware).',
  params: Params,
  create(p) {
    return {
      name: 'remove_repeat_sentences',
      kind: 'map',
      process(batch) {
        return mapTextBatch(batch, p.field, (t) => removeRepeatSentences(t, p));
      },
    };
  },
});
