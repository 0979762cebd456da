import { z } from 'zod';
import type { Task } from '../../core/task.ts';
import { defineOperator } from '../operator.ts';
import { stripSpecial } from './dj-words.ts';
import { mapTextBatch, TextFieldSchema } from './text-fields.ts';

/** Data-Juicer's default: pieces of URLs and markup that make a word junk. */
export const DEFAULT_BAD_SUBSTRINGS: readonly string[] = ['http', 'www', '.com', 'href', '//'];

/**
 * Words (split on spaces, inside tabs, inside lines) that hold any of `substrings`, once stripped
 * of special characters at their ends, removed. The text is rebuilt with single separators:
 * runs of spaces become one, and empty cells and lines go (Data-Juicer's merge).
 */
export function removeWordsWithSubstrings(text: string, substrings: readonly string[]): string {
  const keep = (w: string) => {
    const s = stripSpecial(w);
    return substrings.every((sub) => !s.includes(sub));
  };
  const lines: string[] = [];
  for (const line of text.split('\n')) {
    const cells: string[] = [];
    for (const cell of line.split('\t')) {
      const words = cell.split(' ').filter((w) => w.length > 0 && keep(w));
      if (words.length > 0) cells.push(words.join(' '));
    }
    if (cells.length > 0) lines.push(cells.join('\t'));
  }
  return lines.join('\n');
}

const Params = z.strictObject({
  field: TextFieldSchema.default('prompt'),
  substrings: z.array(z.string().min(1)).default([...DEFAULT_BAD_SUBSTRINGS]),
});

export const removeWordsWithSubstringsOp = defineOperator<Task, typeof Params>({
  name: 'remove_words_with_substrings',
  kind: 'map',
  rowWise: true,
  textOnly: true,
  description:
    'Remove whitespace-separated words that contain any of the substrings (default: http, www, .com, href, //).',
  params: Params,
  create(p) {
    return {
      name: 'remove_words_with_substrings',
      kind: 'map',
      process(batch) {
        return mapTextBatch(batch, p.field, (t) => removeWordsWithSubstrings(t, p.substrings));
      },
    };
  },
});
