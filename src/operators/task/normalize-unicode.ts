import { z } from 'zod';
import type { Task } from '../../core/task.ts';
import { defineOperator } from '../operator.ts';
import { keepsPass, mapTextBatch, TextFieldSchema } from './text-fields.ts';
import type { AsciiProfile } from './text-profile.ts';

/**
 * Invisible characters that only get in the way of matching: zero-width space/joiners, word
 * joiner, BOM, soft hyphen, bidi marks and embeddings, plus C0/C1 control characters other than
 * tab, line feed and carriage return.
 */
const INVISIBLE =
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u00ad\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;
const SINGLE_QUOTES = /[\u2018\u2019\u201a\u201b\u2032\u02bc\u00b4]/g;

/**
 * Spacing accents (´ ¨ ¸ ˜ ゛ …) that NFKC/NFKD turn into a space plus a combining mark, which then
 * lands on whatever precedes it. The compatibility forms leave them as they are.
 */
const SPACING_ACCENTS = (() => {
  let chars = '';
  for (let c = 0xa0; c < 0x10000; c++) {
    if (c >= 0xd800 && c <= 0xdfff) continue;
    const ch = String.fromCharCode(c);
    if (/^ \p{M}/u.test(ch.normalize('NFKC'))) chars += ch;
  }
  return new RegExp(`([${chars}])`, 'u');
})();

function normalizeForm(text: string, form: 'NFC' | 'NFKC' | 'NFD' | 'NFKD'): string {
  if (form === 'NFC' || form === 'NFD' || !SPACING_ACCENTS.test(text)) return text.normalize(form);
  // Odd pieces of the split are the accents themselves: kept unchanged.
  return text
    .split(SPACING_ACCENTS)
    .map((part, i) => (i % 2 === 1 ? part : part.normalize(form)))
    .join('');
}
const DOUBLE_QUOTES = /[\u201c\u201d\u201e\u201f\u2033\u00ab\u00bb]/g;
const DASHES = /[\u2010-\u2015\u2212]/g;

export interface UnicodeOptions {
  form: 'NFC' | 'NFKC' | 'NFD' | 'NFKD' | 'none';
  stripInvisible: boolean;
  asciiQuotes: boolean;
  asciiDashes: boolean;
}

/** Printable ASCII plus tab and line breaks: every normal form, strip and fold leaves it as it is. */
function isPlainAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x7f || (c < 0x20 && c !== 9 && c !== 10 && c !== 13)) return false;
  }
  return true;
}

export function normalizeUnicode(text: string, opts: UnicodeOptions): string {
  return isPlainAscii(text) ? text : normalizeUnicodeFull(text, opts);
}

/** The reference (normalizeUnicode returns plain ASCII text as it is without running it). */
export function normalizeUnicodeFull(text: string, opts: UnicodeOptions): string {
  let out = opts.form === 'none' ? text : normalizeForm(text, opts.form);
  if (opts.stripInvisible) out = out.replace(INVISIBLE, '');
  if (opts.asciiQuotes) out = out.replace(SINGLE_QUOTES, "'").replace(DOUBLE_QUOTES, '"');
  if (opts.asciiDashes) out = out.replace(DASHES, '-');
  return out;
}

const Params = z.strictObject({
  field: TextFieldSchema.default('prompt'),
  /** NFC keeps meaning (x² stays x²); NFKC also folds compatibility forms (x² → x2, ﬁ → fi, full-width → ASCII). */
  form: z.enum(['NFC', 'NFKC', 'NFD', 'NFKD', 'none']).default('NFC'),
  stripInvisible: z.boolean().default(true),
  /** ‘ ’ ‚ ‛ ′ ʼ ´ → ' and “ ” „ ‟ ″ « » → " */
  asciiQuotes: z.boolean().default(false),
  /** Hyphens, en/em dashes and the minus sign (U+2010–U+2015, U+2212) → - */
  asciiDashes: z.boolean().default(false),
});

export const normalizeUnicodeOp = defineOperator<Task, typeof Params>({
  name: 'normalize_unicode',
  kind: 'map',
  rowWise: true,
  textOnly: true,
  description:
    'Unicode normal form (NFC/NFKC/NFD/NFKD), strip zero-width and control characters, optional ASCII quotes and dashes.',
  params: Params,
  create(params) {
    // An ASCII prompt this step leaves as it is, known from its profile.
    const keeps = (p: AsciiProfile) => p.printable;
    return {
      name: 'normalize_unicode',
      kind: 'map',
      profilePass: keepsPass(params.field, keeps),
      process(batch) {
        return mapTextBatch(batch, params.field, (t) => normalizeUnicode(t, params), keeps);
      },
    };
  },
});
