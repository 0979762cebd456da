import { z } from 'zod';
import type { Task } from '../../core/task.ts';
import { defineOperator } from '../operator.ts';
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

export function normalizePunctuation(text: string): string {
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
