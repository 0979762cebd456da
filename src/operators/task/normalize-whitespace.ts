import { z } from 'zod';
import type { Task } from '../../core/task.ts';
import { whitespaceForm } from '../columnar/text-forms.ts';
import { defineOperator } from '../operator.ts';
import { keepsPass, mapTextBatch, TextFieldSchema } from './text-fields.ts';
import type { AsciiProfile } from './text-profile.ts';

/**
 * Horizontal whitespace: tab, vertical tab, form feed, space, the Unicode space separators, and
 * U+0084 (a C1 control Data-Juicer's whitespace table lists: what is left of a mis-decoded
 * non-breaking or line-break byte; never meant to be seen).
 */
const HSPACE = /[\t\v\f \u0084\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]+/g;
const LINE_BREAK = /\r\n|[\r\u0085\u2028\u2029]/g;
/** U+0084, spaced before joiners are judged (a joiner next to it joins nothing). */
const C1_SPACE = /\u0084/g;
/** Zero-width space, word joiner, object replacement character: never meant to be seen. */
const ZERO_WIDTH = /[\u200b\u2060\ufffc]/g;
/**
 * Zero-width (non-)joiners carry meaning only between two non-ASCII characters (emoji ZWJ
 * sequences, Persian and Indic shaping); next to whitespace, ASCII or a text edge they are noise.
 */
const STRAY_JOINER = /(?<![^\s\x00-\x7f])[\u200c\u200d]|[\u200c\u200d](?![^\s\x00-\x7f])/g;

export type NewlineMode = 'keep' | 'paragraphs' | 'collapse';

/**
 * Whitespace normal form. Zero-width spaces, word joiners and U+FFFC are removed, as are
 * zero-width joiners that join nothing (see STRAY_JOINER). Line breaks become `\n`; runs of spaces/tabs (including Unicode spaces)
 * become one space; lines are trimmed; the text is trimmed. Then, by `newlines`:
 * - `keep`: single line breaks stay, any run of blank lines becomes one blank line;
 * - `paragraphs`: single line breaks become spaces, blank-line runs become one blank line (`\n\n`);
 * - `collapse`: every line break becomes a space (one line out).
 */
export function normalizeWhitespace(text: string, newlines: NewlineMode = 'keep'): string {
  if (alreadyNormal(text, newlines)) return text;
  return normalizeWhitespaceFull(text, newlines);
}

/** The full normaliser, without the already-normal fast path (exported so tests can compare). */
export function normalizeWhitespaceFull(text: string, newlines: NewlineMode = 'keep'): string {
  const lines = text
    .replace(ZERO_WIDTH, '')
    .replace(C1_SPACE, ' ')
    .replace(STRAY_JOINER, '')
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

/**
 * Fast path: most texts in a clean-up pass are already in normal form. One scan that allocates
 * nothing decides it; anything unusual goes through the full normaliser above.
 */
function alreadyNormal(text: string, newlines: NewlineMode): boolean {
  const n = text.length;
  if (n === 0) return true;
  if (
    text.charCodeAt(0) === 32 ||
    text.charCodeAt(n - 1) === 32 ||
    text.charCodeAt(0) === 10 ||
    text.charCodeAt(n - 1) === 10
  )
    return false;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 32) {
      const next = text.charCodeAt(i + 1);
      if (next === 32 || next === 10) return false;
    } else if (c === 10) {
      if (newlines === 'collapse') return false;
      const next = text.charCodeAt(i + 1);
      if (next === 32) return false;
      if (next === 10) {
        // A blank line: allowed once (a paragraph break), never twice in a row.
        if (text.charCodeAt(i + 2) === 10 || text.charCodeAt(i + 2) === 32) return false;
        i++;
      } else if (newlines === 'paragraphs') return false;
    } else if (
      c < 32 ||
      (c >= 0x80 &&
        (c === 0x84 ||
          c === 0x85 ||
          c === 0xa0 ||
          c === 0x1680 ||
          (c >= 0x2000 && c <= 0x200d) ||
          c === 0x2060 ||
          c === 0xfffc ||
          c === 0x2028 ||
          c === 0x2029 ||
          c === 0x202f ||
          c === 0x205f ||
          c === 0x3000))
    ) {
      return false;
    }
  }
  return true;
}

const Params = z.strictObject({
  field: TextFieldSchema.default('prompt'),
  /** What happens to line breaks: keep them, keep only paragraph breaks, or collapse all to spaces. */
  newlines: z.enum(['keep', 'paragraphs', 'collapse']).default('keep'),
});

export const normalizeWhitespaceOp = defineOperator<Task, typeof Params>({
  name: 'normalize_whitespace',
  kind: 'map',
  rowWise: true,
  textOnly: true,
  description:
    'Collapse runs of spaces, trim lines and text, normalise line breaks (optionally keep paragraphs).',
  params: Params,
  create(params) {
    // An ASCII prompt this step leaves as it is, known from its profile.
    const keeps = (p: AsciiProfile) => p.whitespaceNormal;
    // Made once per step, not per batch: see filterRows (operators/operator.ts).
    const normalize = (t: string) => normalizeWhitespace(t, params.newlines);
    return {
      name: 'normalize_whitespace',
      kind: 'map',
      profilePass: keepsPass(params.field, keeps),
      process(batch) {
        return mapTextBatch(batch, params.field, normalize, keeps);
      },
    };
  },
  // `all` maps the prompt and the answer alike: two columns, not one (left row-wise).
  columnar: (p) => (p.field === 'all' ? null : whitespaceForm(p.field, p.newlines)),
});
