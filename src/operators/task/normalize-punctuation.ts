import { z } from 'zod';
import type { Task } from '../../core/task.ts';
import { defineOperator } from '../operator.ts';
import { lazyCodeUnitTable } from './code-unit-table.ts';
import { mapTextBatch, TextFieldSchema } from './text-fields.ts';

/**
 * Punctuation to its ASCII form: full-width and CJK punctuation, curly quotes, dashes, brackets,
 * box-drawing lines, arrows and bullets. Spacing accents become an apostrophe or are kept as
 * they are — never a space plus a combining mark (which is what NFKC makes of `´`).
 */
export const PUNCTUATION_TABLE: Readonly<Record<string, string>> = {
  // CJK and full-width sentence punctuation
  '，': ',',
  '。': '.',
  '、': ',',
  '．': '.',
  '｡': '.',
  '､': ',',
  '；': ';',
  '：': ':',
  '∶': ':', // U+2236 RATIO, used for a colon in Chinese text
  '？': '?',
  '！': '!',
  '…': '...',
  '‥': '..',
  '〜': '~',
  '～': '~',
  // quotes and corner brackets
  '「': '"',
  '」': '"',
  '『': '"',
  '』': '"',
  '“': '"',
  '”': '"',
  '„': '"',
  '‟': '"',
  '«': '"',
  '»': '"',
  '〝': '"',
  '〞': '"',
  '＂': '"',
  '‘': "'",
  '’': "'",
  '‚': "'",
  '‛': "'",
  '‹': "'",
  '›': "'",
  '＇': "'",
  '´': "'",
  '′': "'",
  '″': '"',
  // brackets
  '（': '(',
  '）': ')',
  '［': '[',
  '］': ']',
  '｛': '{',
  '｝': '}',
  '【': '[',
  '】': ']',
  '〖': '[',
  '〗': ']',
  '〔': '[',
  '〕': ']',
  '《': '"',
  '》': '"',
  '〈': '<',
  '〉': '>',
  '＜': '<',
  '＞': '>',
  // dashes and lines (box-drawing)
  '‐': '-',
  '‑': '-',
  '‒': '-',
  '–': '-',
  '—': '-',
  '―': '-',
  '−': '-',
  '－': '-',
  '─': '-',
  '━': '-',
  '│': '|',
  '┃': '|',
  '═': '=',
  '║': '|',
  // arrows and bullets
  '►': '>',
  '▶': '>',
  '▸': '>',
  '→': '->',
  '⇒': '=>',
  '◄': '<',
  '◀': '<',
  '←': '<-',
  '⇐': '<=',
  '•': '-',
  '●': '-',
  '▪': '-',
  '■': '-',
  '◆': '-',
  '★': '*',
  '☆': '*',
  // other full-width symbols
  '＃': '#',
  '＄': '$',
  '％': '%',
  '＆': '&',
  '＊': '*',
  '＋': '+',
  '／': '/',
  '＼': '\\',
  '＝': '=',
  '＠': '@',
  '＾': '^',
  '＿': '_',
  '｜': '|',
  '\u3000': ' ',
};

const KEYS = new RegExp(
  `[${Object.keys(PUNCTUATION_TABLE)
    .map((k) => k.replace(/[\\\]^-]/g, '\\$&'))
    .join('')}]`,
  'gu',
);

/** Which code units the table maps (every key is one BMP character, none a surrogate). */
const MAPPED = lazyCodeUnitTable((unit) => (Object.hasOwn(PUNCTUATION_TABLE, unit) ? 1 : 0));

export function normalizePunctuation(text: string): string {
  // One scan with a table lookup per code unit; most texts have nothing to map and are returned as they are.
  const mapped = MAPPED();
  let out = '';
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    if (mapped[text.charCodeAt(i)] === 0) continue;
    out += text.slice(from, i) + PUNCTUATION_TABLE[text[i]!]!;
    from = i + 1;
  }
  return from === 0 ? text : out + text.slice(from);
}

/** The reference: one regular expression over the table's keys (normalizePunctuation scans). */
export function normalizePunctuationRef(text: string): string {
  return text.replace(KEYS, (ch) => PUNCTUATION_TABLE[ch]!);
}

const Params = z.strictObject({ field: TextFieldSchema.default('prompt') });

export const normalizePunctuationOp = defineOperator<Task, typeof Params>({
  name: 'normalize_punctuation',
  kind: 'map',
  rowWise: true,
  textOnly: true,
  description:
    'Map CJK/full-width punctuation, curly quotes, dashes, box-drawing lines, arrows and bullets to ASCII.',
  params: Params,
  create(p) {
    return {
      name: 'normalize_punctuation',
      kind: 'map',
      process(batch) {
        return mapTextBatch(batch, p.field, normalizePunctuation);
      },
    };
  },
});
