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
/** U+FFFD stands in a run for a byte the first wrong decoding lost. */
const LOST = -2;
/** ftfy undoes at most this many layers too; texts garbled more often are rare. */
const MAX_LAYERS = 4;

/** Bytes a UTF-8 sequence with this lead byte has, or 0 when it is not a multi-byte lead. */
function sequenceLength(lead: number): number {
  if (lead >= 0xc2 && lead <= 0xdf) return 2;
  if (lead >= 0xe0 && lead <= 0xef) return 3;
  if (lead >= 0xf0 && lead <= 0xf4) return 4;
  return 0;
}

/** Continuation bytes of a well-formed sequence (the second byte's range depends on the lead). */
function continues(lead: number, at: number, byte: number): boolean {
  if (at === 1) {
    if (lead === 0xe0) return byte >= 0xa0 && byte <= 0xbf;
    if (lead === 0xed) return byte >= 0x80 && byte <= 0x9f;
    if (lead === 0xf0) return byte >= 0x90 && byte <= 0xbf;
    if (lead === 0xf4) return byte >= 0x80 && byte <= 0x8f;
  }
  return byte >= 0x80 && byte <= 0xbf;
}

/**
 * One run of byte-standing characters, repaired sequence by sequence: each well-formed UTF-8
 * sequence becomes its character; a sequence cut short by a lost byte (U+FFFD where a
 * continuation belongs, as in `â€�`) becomes U+FFFD, since which character it was is unknowable;
 * anything else stays as it was. One bad sequence never stops the repair of the others.
 */
function repairRun(chars: readonly string[], bytes: readonly number[]): string {
  let out = '';
  let i = 0;
  while (i < chars.length) {
    const lead = bytes[i]!;
    const n = sequenceLength(lead);
    let k = 1;
    while (n > 0 && k < n && i + k < chars.length && continues(lead, k, bytes[i + k]!)) k++;
    if (n > 0 && k === n) {
      out += STRICT_UTF8.decode(Uint8Array.from(bytes.slice(i, i + n)));
      i += n;
    } else if (n > 0 && k > 1 && bytes[i + k] === LOST) {
      out += '\ufffd';
      i += k + 1;
    } else {
      out += chars[i]!;
      i++;
    }
  }
  return out;
}

/** One layer of repair: the text cut into runs of characters that each stand for one byte. */
function repairLayer(text: string): string {
  let out = '';
  let chars: string[] = [];
  let bytes: number[] = [];
  const flush = () => {
    if (chars.length === 0) return;
    const s = chars.join('');
    out += SUSPECT.test(s) ? repairRun(chars, bytes) : s;
    chars = [];
    bytes = [];
  };
  for (const ch of text) {
    const b = ch === '\ufffd' ? LOST : byteOf(ch);
    if (b === -1) {
      flush();
      out += ch;
    } else {
      chars.push(ch);
      bytes.push(b);
    }
  }
  flush();
  return out;
}

/**
 * Undo UTF-8 that was decoded as Windows-1252 or Latin-1 (`itâ€™s` → `it’s`, `âœ”` → `✔`,
 * `cafÃ©` → `café`), layer after layer when it happened more than once
 * (`doesnÃƒÂ¢Ã¢â€šÂ¬Ã¢â€žÂ¢t` → `doesn’t`, three layers). Only well-formed UTF-8 sequences are
 * decoded, so a real `é` followed by ASCII, or a stray `Ã`, stays as it is; a sequence whose last
 * byte was lost (`â€�`) becomes `�`, and the rest of the text is still repaired.
 */
export function fixMojibake(text: string): string {
  let current = text;
  for (let layer = 0; layer < MAX_LAYERS && SUSPECT.test(current); layer++) {
    const next = repairLayer(current);
    if (next === current) break;
    current = next;
  }
  return current;
}

/** ftfy's uncurl_quotes (Data-Juicer's fix_unicode_mapper applies it): curly quotes become straight. */
export function uncurlQuotes(text: string): string {
  return text.replace(/[\u2018-\u201b]/g, "'").replace(/[\u201c-\u201f]/g, '"');
}

const Params = z.strictObject({
  field: TextFieldSchema.default('prompt'),
  /** Also straighten every curly quote (‘’‚‛ → ', “”„‟ → "), as ftfy does by default. */
  uncurlQuotes: z.boolean().default(false),
});

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
        return mapTextBatch(
          batch,
          p.field,
          p.uncurlQuotes ? (t) => uncurlQuotes(fixMojibake(t)) : fixMojibake,
        );
      },
    };
  },
});
