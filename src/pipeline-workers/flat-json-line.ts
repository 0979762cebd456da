import type { FieldMapping } from '../io/mapping.ts';
import { columnUse } from '../io/mapping-refs.ts';

/**
 * The fast path's reader of one JSONL line (jsonl-fast-rows.ts): an ASCII line holding one flat JSON
 * object, whose id, prompt and answer columns (the mapping's) hold strings, read straight from its
 * bytes. It only ever accepts a strict subset of what JSON.parse and the mapping accept and map to
 * the same task; on anything else (a byte ≥ 0x80, nesting, a repeated mapped key, a mapped value
 * that is not text, bad JSON) it answers false and the line takes the usual path, which gives the
 * same rows and the same rejection reasons as ever.
 */

/** A mapping the fast path can read: plain top-level text columns for id, prompt and answer, nothing else. */
export interface FlatColumns {
  id: Uint8Array;
  prompt: Uint8Array;
  /** `allowEmpty`: a prompt of whitespace only is kept. */
  allowEmpty: boolean;
  answer: Uint8Array | null;
  /** An absent answer column leaves the task without an answer (else the row is rejected). */
  answerOptional: boolean;
}

const ascii = (s: string) => Buffer.from(s, 'latin1');
const plain = (column: string) =>
  !column.includes('.') && /^[\x20-\x7e]*$/.test(column) && !column.includes('\\');

/** The columns of `m` when it maps plain columns only (no template, path, messages, features or meta); else null. */
export function flatColumnsOf(m: FieldMapping): FlatColumns | null {
  if (m.messages !== undefined || Object.keys(m.features).length > 0) return null;
  if (m.meta === '*' || (Array.isArray(m.meta) ? m.meta.length > 0 : Object.keys(m.meta).length > 0))
    return null;
  // Without an id column a task's id is a hash of its content: the usual path computes it.
  if (m.id === undefined || m.prompt === undefined) return null;
  const id = columnUse(m.id).column;
  if (typeof m.prompt !== 'string' && 'template' in m.prompt) return null;
  const prompt = typeof m.prompt === 'string' ? m.prompt : m.prompt.column;
  const allowEmpty = typeof m.prompt !== 'string' && m.prompt.allowEmpty === true;
  let answer: { column: string; optional: boolean } | null = null;
  if (m.answer !== undefined) {
    if (typeof m.answer !== 'string' && 'template' in m.answer) return null;
    answer = columnUse(m.answer);
  }
  if (!plain(id) || !plain(prompt) || (answer !== null && !plain(answer.column))) return null;
  return {
    id: ascii(id),
    prompt: ascii(prompt),
    allowEmpty,
    answer: answer === null ? null : ascii(answer.column),
    answerOptional: answer?.optional ?? false,
  };
}

const QUOTE = 34;
const BACKSLASH = 92;

const isSpace = (c: number) => c === 32 || c === 9 || c === 13;
const isDigit = (c: number) => c >= 48 && c <= 57;
const hexValue = (c: number) =>
  c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : c >= 65 && c <= 70 ? c - 55 : -1;
/** Bytes a JSON string holds as they are: printable ASCII but `"` and `\`, and DEL. */
const PLAIN = new Uint8Array(256);
for (let c = 0x20; c < 0x80; c++) PLAIN[c] = c === QUOTE || c === BACKSLASH ? 0 : 1;
/** What the byte after a backslash stands for (−1: not a JSON escape; `u` is handled apart). */
const ESCAPED = new Int16Array(128).fill(-1);
for (const [c, v] of [
  ['"', 34],
  ['\\', 92],
  ['/', 47],
  ['b', 8],
  ['f', 12],
  ['n', 10],
  ['r', 13],
  ['t', 9],
] as const)
  ESCAPED[c.charCodeAt(0)] = v;

/** Where the mapped values of the last line read lie: [start, end) between their quotes, −1 when absent. */
export class FlatLine {
  idStart = -1;
  idEnd = -1;
  promptStart = -1;
  promptEnd = -1;
  answerStart = -1;
  answerEnd = -1;
  /** Whether the value holds a backslash escape (then it is decoded, not copied). */
  idEscaped = false;
  promptEscaped = false;
  answerEscaped = false;
  private readonly cols: FlatColumns;
  private buf: Uint8Array = new Uint8Array(0);
  /** Whether the last string read held a backslash. */
  private escaped = false;

  constructor(cols: FlatColumns) {
    this.cols = cols;
  }

  /**
   * Read the line buf[start, end) (no newline; a trailing CR allowed): true when it is one flat JSON
   * object whose mapped columns (when there) hold strings of ASCII, each at most once.
   */
  read(buf: Uint8Array, start: number, end: number): boolean {
    this.buf = buf;
    this.idStart = this.promptStart = this.answerStart = -1;
    let e = end;
    if (e > start && buf[e - 1] === 13) e--;
    let p = start;
    if (buf[p] !== 123 /* { */) return false;
    p = this.space(p + 1, e);
    if (buf[p] === 125 /* } */) return this.space(p + 1, e) === e;
    for (;;) {
      if (buf[p] !== QUOTE) return false;
      const keyStart = p + 1;
      let k = keyStart;
      while (k < e && buf[k] !== QUOTE) {
        const c = buf[k]!;
        if (c < 0x20 || c >= 0x7f || c === BACKSLASH) return false;
        k++;
      }
      if (k >= e) return false;
      p = this.space(k + 1, e);
      if (buf[p] !== 58 /* : */) return false;
      p = this.space(p + 1, e);
      if (buf[p] === QUOTE) {
        const vEnd = this.string(p + 1, e);
        if (vEnd < 0) return false;
        if (!this.take(keyStart, k, p + 1, vEnd)) return false;
        p = vEnd + 1;
      } else {
        // A mapped column holding a number, a boolean or null: the mapping's own rules decide.
        if (this.mapped(keyStart, k)) return false;
        p = this.scalar(p, e);
        if (p < 0) return false;
      }
      p = this.space(p, e);
      if (buf[p] === 44 /* , */) {
        p = this.space(p + 1, e);
        continue;
      }
      if (buf[p] !== 125) return false;
      return this.space(p + 1, e) === e;
    }
  }

  /** The decoded bytes of a value, escapes resolved, written at `out[at]`: the end, or −1 for a non-ASCII escape. */
  copy(start: number, end: number, escaped: boolean, out: Uint8Array, at: number): number {
    const buf = this.buf;
    if (!escaped) {
      // Texts are short: a loop beats a native copy's call and its view object.
      for (let p = start; p < end; p++) out[at++] = buf[p]!;
      return at;
    }
    for (let p = start; p < end; p++) {
      let c = buf[p]!;
      if (c === BACKSLASH) {
        const x = buf[++p]!;
        if (x === 117 /* u */) {
          c =
            (hexValue(buf[p + 1]!) << 12) |
            (hexValue(buf[p + 2]!) << 8) |
            (hexValue(buf[p + 3]!) << 4) |
            hexValue(buf[p + 4]!);
          if (c >= 0x80) return -1;
          p += 4;
        } else c = ESCAPED[x]!;
      }
      out[at++] = c;
    }
    return at;
  }

  /** Record a string value [vStart, vEnd) under the roles its key has; false on a repeated mapped key. */
  private take(keyStart: number, keyEnd: number, vStart: number, vEnd: number): boolean {
    const cols = this.cols;
    const escaped = this.escaped;
    if (this.is(keyStart, keyEnd, cols.id)) {
      if (this.idStart >= 0) return false;
      this.idStart = vStart;
      this.idEnd = vEnd;
      this.idEscaped = escaped;
    }
    if (this.is(keyStart, keyEnd, cols.prompt)) {
      if (this.promptStart >= 0) return false;
      this.promptStart = vStart;
      this.promptEnd = vEnd;
      this.promptEscaped = escaped;
    }
    if (cols.answer !== null && this.is(keyStart, keyEnd, cols.answer)) {
      if (this.answerStart >= 0) return false;
      this.answerStart = vStart;
      this.answerEnd = vEnd;
      this.answerEscaped = escaped;
    }
    return true;
  }

  private mapped(keyStart: number, keyEnd: number): boolean {
    const cols = this.cols;
    return (
      this.is(keyStart, keyEnd, cols.id) ||
      this.is(keyStart, keyEnd, cols.prompt) ||
      (cols.answer !== null && this.is(keyStart, keyEnd, cols.answer))
    );
  }

  private is(start: number, end: number, name: Uint8Array): boolean {
    if (end - start !== name.length) return false;
    const buf = this.buf;
    for (let i = 0; i < name.length; i++) if (buf[start + i] !== name[i]) return false;
    return true;
  }

  private space(p: number, e: number): number {
    const buf = this.buf;
    while (p < e && isSpace(buf[p]!)) p++;
    return p;
  }

  /**
   * The closing quote of a string whose text starts at `p`, or −1 (bad escape, control or non-ASCII
   * byte, no end); `escaped` tells whether it held a backslash.
   */
  private string(p: number, e: number): number {
    const buf = this.buf;
    this.escaped = false;
    for (;;) {
      while (PLAIN[buf[p]!] === 1) p++;
      if (p >= e) return -1;
      const c = buf[p]!;
      if (c === QUOTE) return p;
      if (c !== BACKSLASH) return -1;
      this.escaped = true;
      const x = buf[++p]!;
      if (x === 117) {
        if (p + 4 >= e) return -1;
        for (let h = 1; h <= 4; h++) if (hexValue(buf[p + h]!) < 0) return -1;
        p += 4;
      } else if (x === undefined || x >= 128 || ESCAPED[x]! < 0) return -1;
      p++;
    }
  }

  /** The end of a number, `true`, `false` or `null` starting at `p`, or −1. */
  private scalar(p: number, e: number): number {
    const buf = this.buf;
    const c = buf[p];
    for (const word of LITERALS)
      if (c === word[0]) {
        if (p + word.length > e) return -1;
        for (let i = 1; i < word.length; i++) if (buf[p + i] !== word[i]) return -1;
        return p + word.length;
      }
    // -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?
    if (buf[p] === 45) p++;
    if (buf[p] === 48) p++;
    else if (p < e && isDigit(buf[p]!)) while (p < e && isDigit(buf[p]!)) p++;
    else return -1;
    if (buf[p] === 46) {
      p++;
      if (!(p < e && isDigit(buf[p]!))) return -1;
      while (p < e && isDigit(buf[p]!)) p++;
    }
    if (buf[p] === 101 || buf[p] === 69) {
      p++;
      if (buf[p] === 43 || buf[p] === 45) p++;
      if (!(p < e && isDigit(buf[p]!))) return -1;
      while (p < e && isDigit(buf[p]!)) p++;
    }
    return p;
  }
}

const LITERALS = ['true', 'false', 'null'].map((w) => Buffer.from(w, 'latin1'));
