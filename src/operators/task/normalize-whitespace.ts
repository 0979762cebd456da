import { z } from 'zod';
import type { Task } from '../../core/task.ts';
import { defineOperator } from '../operator.ts';
import { mapTextBatch, TextFieldSchema } from './text-fields.ts';

/** Horizontal whitespace: tab, vertical tab, form feed, space and the Unicode space separators. */
const HSPACE = /[\t\v\f \u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]+/g;
const LINE_BREAK = /\r\n|[\r\u0085\u2028\u2029]/g;

export type NewlineMode = 'keep' | 'paragraphs' | 'collapse';

/**
 * Whitespace normal form. Line breaks become `\n`; runs of spaces/tabs (including Unicode spaces)
 * become one space; lines are trimmed; the text is trimmed. Then, by `newlines`:
 * - `keep`: single line breaks stay, any run of blank lines becomes one blank line;
 * - `paragraphs`: single line breaks become spaces, blank-line runs become one blank line (`\n\n`);
 * - `collapse`: every line break becomes a space (one line out).
 */
export function normalizeWhitespace(text: string, newlines: NewlineMode = 'keep'): string {
  const lines = text
    .replace(LINE_BREAK, '\n')
    .replace(HSPACE, ' ')
    .split('\n')
    .map((l) => l.trim());
  if (newlines === 'collapse') return lines.filter((l) => l.length > 0).join(' ');
  // Group lines into paragraphs separated by one or more blank lines.
  const paragraphs: string[][] = [];
  let current: string[] = [];
  for (const line of lines) {
    if (line.length === 0) {
      if (current.length > 0) paragraphs.push(current);
      current = [];
    } else current.push(line);
  }
  if (current.length > 0) paragraphs.push(current);
  const joiner = newlines === 'keep' ? '\n' : ' ';
  return paragraphs.map((p) => p.join(joiner)).join('\n\n');
}

const Params = z.strictObject({
  field: TextFieldSchema.default('prompt'),
  /** What happens to line breaks: keep them, keep only paragraph breaks, or collapse all to spaces. */
  newlines: z.enum(['keep', 'paragraphs', 'collapse']).default('keep'),
});

export const normalizeWhitespaceOp = defineOperator<Task, typeof Params>({
  name: 'normalize_whitespace',
  kind: 'map',
  description:
    'Collapse runs of spaces, trim lines and text, normalise line breaks (optionally keep paragraphs).',
  params: Params,
  create(params) {
    return {
      name: 'normalize_whitespace',
      kind: 'map',
      process(batch) {
        return mapTextBatch(batch, params.field, (t) => normalizeWhitespace(t, params.newlines));
      },
    };
  },
});
