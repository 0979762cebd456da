import { z } from 'zod';
import type { Task } from '../../core/task.ts';
import { defineOperator } from '../operator.ts';
import { sentenceSegments } from './text-units.ts';

/** Cut one over-long string into windows of maxLen code points, each starting `overlap` before the last ended. */
function hardCut(text: string, maxLen: number, overlap: number): string[] {
  const cps = Array.from(text);
  const out: string[] = [];
  for (let start = 0; start < cps.length; start += maxLen - overlap) {
    out.push(cps.slice(start, start + maxLen).join(''));
    if (start + maxLen >= cps.length) break;
  }
  return out;
}

const cpLength = (s: string) => Array.from(s).length;

/**
 * Chunks of at most maxLen characters: the text is split at `splitPattern` (paragraphs by
 * default); a piece still too long is packed sentence by sentence (CJK-aware, text-units.ts); a
 * single sentence too long is cut every maxLen − overlap characters. Pieces are trimmed; empty
 * ones dropped.
 */
export function chunkText(text: string, maxLen: number, splitPattern: RegExp, overlap: number): string[] {
  const out: string[] = [];
  for (const raw of text.split(splitPattern)) {
    const piece = raw.trim();
    if (piece.length === 0) continue;
    if (cpLength(piece) <= maxLen) {
      out.push(piece);
      continue;
    }
    let current = '';
    const emit = () => {
      if (current.trim().length > 0) out.push(current.trim());
      current = '';
    };
    for (const line of piece.split('\n'))
      for (const sentence of sentenceSegments(`${line}\n`)) {
        if (cpLength(current + sentence.trimEnd()) <= maxLen) current += sentence;
        else {
          emit();
          if (cpLength(sentence.trim()) <= maxLen) current = sentence;
          else out.push(...hardCut(sentence.trim(), maxLen, overlap));
        }
      }
    emit();
  }
  return out;
}

const Params = z
  .strictObject({
    /** The prompt (a task with only chat messages is passed through) or the answer. */
    field: z.enum(['prompt', 'answer']).default('prompt'),
    /** Most characters (code points) per chunk. */
    maxLen: z.number().int().min(1).default(2000),
    /** A regular expression the text is first split at. */
    splitPattern: z
      .string()
      .refine(
        (s) => {
          try {
            new RegExp(s, 'u');
            return true;
          } catch {
            return false;
          }
        },
        { message: 'not a valid regular expression (JavaScript syntax, u flag)' },
      )
      .default('\\n\\s*\\n'),
    /** Characters shared by consecutive pieces of one sentence cut by length. */
    overlap: z.number().int().min(0).default(0),
  })
  .refine((p) => p.overlap < p.maxLen, { message: 'overlap must be below maxLen', path: ['overlap'] });

export const chunkTextOp = defineOperator<Task, typeof Params>({
  name: 'chunk_text',
  kind: 'augment',
  rowWise: true,
  description:
    'Split long texts into chunks of at most maxLen characters (paragraphs, then sentences); one row per chunk.',
  params: Params,
  create(p) {
    const pattern = new RegExp(p.splitPattern, 'u');
    return {
      name: 'chunk_text',
      kind: 'augment',
      process(batch) {
        const rows: Task[] = [];
        let emitted = 0;
        for (const task of batch) {
          const text = p.field === 'prompt' ? task.prompt : task.answer;
          const chunks = text === undefined ? [] : chunkText(text, p.maxLen, pattern, p.overlap);
          if (chunks.length <= 1) {
            rows.push(chunks.length === 1 && chunks[0] !== text ? { ...task, [p.field]: chunks[0] } : task);
            continue;
          }
          chunks.forEach((chunk, i) => {
            rows.push({
              ...task,
              id: `${task.id}#${i}`,
              [p.field]: chunk,
              meta: { ...task.meta, chunk: { source: task.id, index: i, of: chunks.length } },
            });
          });
          emitted += chunks.length - 1;
        }
        // variants_emitted: the rows added beyond one per input (the runner's augment accounting).
        return { rows, dropped: [], metrics: { variants_emitted: emitted } };
      },
    };
  },
});
