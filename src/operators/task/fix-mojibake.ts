import { z } from 'zod';
import type { Task } from '../../core/task.ts';
import { defineOperator } from '../operator.ts';
import { mapTextBatch, TextFieldSchema } from './text-fields.ts';

/** Windows-1252's bytes 0x80–0x9F that are not C1 controls, by the character they decode to. */
const CP1252_HIGH: Record<string, number> = {
  '€': 0x80,
  '‚': 0x82,
  ƒ: 0x83,
  '„': 0x84,
  '…': 0x85,
  '†': 0x86,
  '‡': 0x87,
  ˆ: 0x88,
  '‰': 0x89,
  Š: 0x8a,
  '‹': 0x8b,
  Œ: 0x8c,
  Ž: 0x8e,
  '‘': 0x91,
  '’': 0x92,
  '“': 0x93,
  '”': 0x94,
  '•': 0x95,
  '–': 0x96,
  '—': 0x97,
  '˜': 0x98,
  '™': 0x99,
  š: 0x9a,
  '›': 0x9b,
  œ: 0x9c,
  ž: 0x9e,
  Ÿ: 0x9f,
};

/** The byte a character came from when UTF-8 was decoded as Windows-1252 or Latin-1; -1 if none. */
function byteOf(ch: string): number {
  const c = ch.charCodeAt(0);
  if (c <= 0xff) return c; // Latin-1, and C1 controls where cp1252 leaves a byte undefined
  return CP1252_HIGH[ch] ?? -1;
}

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });
/** A UTF-8 lead byte's character followed by a continuation byte's: the mark of mojibake. */
const SUSPECT = /[\u00c2-\u00f4][\u0080-\u00bf€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ]/;

/**
 * Undo UTF-8 that was decoded as Windows-1252 or Latin-1 (`itâ€™s` → `it’s`, `âœ”` → `✔`,
 * `cafÃ©` → `café`). The text is cut into runs of characters that each stand for one byte; a run
 * holding a suspect pair is re-encoded to bytes and decoded as strict UTF-8. The repair is made
 * only when that decoding succeeds for the whole run — the unambiguous case; a run such as
 * `café Ã` (a real é, then a stray Ã) is not valid UTF-8 and stays as it is.
 */
export function fixMojibake(text: string): string {
  if (!SUSPECT.test(text)) return text;
  let out = '';
  let run: string[] = [];
  const flush = () => {
    if (run.length === 0) return;
    const s = run.join('');
    run = [];
    if (!SUSPECT.test(s)) {
      out += s;
      return;
    }
    const bytes = Uint8Array.from(s, (ch) => byteOf(ch));
    try {
      out += STRICT_UTF8.decode(bytes);
    } catch {
      out += s;
    }
  };
  for (const ch of text) {
    if (byteOf(ch) >= 0) run.push(ch);
    else {
      flush();
      out += ch;
    }
  }
  flush();
  return out;
}

const Params = z.strictObject({ field: TextFieldSchema.default('prompt') });

export const fixMojibakeOp = defineOperator<Task, typeof Params>({
  name: 'fix_mojibake',
  kind: 'map',
  rowWise: true,
  textOnly: true,
  description:
    'Repair UTF-8 text that was decoded as Windows-1252 or Latin-1, only where the repair is unambiguous.',
  params: Params,
  create(p) {
    return {
      name: 'fix_mojibake',
      kind: 'map',
      process(batch) {
        return mapTextBatch(batch, p.field, fixMojibake);
      },
    };
  },
});
