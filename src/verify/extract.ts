/**
 * Where a final answer sits in a text. Gold answers and responses go through the same rules,
 * tried in order: the last `\boxed{}`/`\fbox{}`; the last `#### x` (GSM8K); the last "final
 * answer"/"the answer is" phrase; a text that is itself a short expression; the last math block
 * (`$…$`, `$$…$$`, `\(…\)`, `\[…\]`); else the last number.
 */

export type FoundBy = 'boxed' | 'hashes' | 'phrase' | 'whole' | 'math_block' | 'last_number';

export interface FoundAnswer {
  answer: string;
  by: FoundBy;
}

/** Why no answer could be taken from a text that tried to give one. */
export interface NoAnswer {
  failure: 'unclosed_box';
}

/** What may stand between boxes that together give one answer: `\boxed{1}, \boxed{2}`, `… \text{and} …`. */
const BOX_JOINER = /^[\s,;$.]*(?:(?:\\text\s*\{\s*(?:and|or)\s*\}|\\(?:quad|qquad)|and|or)[\s,;$.]*)?$/;

/**
 * Content of the last `\boxed{…}`/`\fbox{…}` (nested braces allowed), or `\boxed 5`; `unclosed`
 * when the last box never closes (a truncated response: its answer is unknown, not the box before).
 * Boxes that follow each other with only a comma, `and`/`or` or space between them are one answer
 * of several parts (`\boxed{1}\boxed{2}` reads as `1, 2`).
 */
export function lastBoxed(text: string): string | null | { unclosed: true } {
  return lastBoxedAt(text)?.answer ?? null;
}

/** `lastBoxed` with where the answer's boxes start (for the final-answer phrase that follows them). */
export function lastBoxedAt(text: string): { answer: string | { unclosed: true }; at: number } | null {
  const re = /\\(?:boxed|fbox)\s*(\{)?/g;
  let run: string[] = [];
  let runStart = -1;
  let prevEnd = -1;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    const start = m.index + m[0].length;
    let content: string;
    let end: number;
    if (m[1] === undefined) {
      const bare = /^\s*([^\s$]+)/.exec(text.slice(start, start + 200));
      if (!bare) continue;
      content = bare[1]!;
      end = start + bare[0].length;
    } else {
      const close = closingBrace(text, start);
      if (close < 0) return { answer: { unclosed: true }, at: m.index };
      content = text.slice(start, close).trim();
      end = close + 1;
      re.lastIndex = close;
    }
    const joined = prevEnd >= 0 && BOX_JOINER.test(text.slice(prevEnd, m.index));
    if (!joined) {
      run = [];
      runStart = m.index;
    }
    if (content !== '') run.push(content);
    prevEnd = end;
  }
  return run.length === 0 ? null : { answer: run.join(', '), at: runStart };
}

/** Index of the `}` closing a group whose content starts at `start`, or -1 when it never closes. */
function closingBrace(text: string, start: number): number {
  let depth = 1;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (c === '\\') i++;
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return i;
  }
  return -1;
}

function lastHashes(text: string): string | null {
  const at = text.lastIndexOf('####');
  if (at < 0) return null;
  const line = text
    .slice(at + 4)
    .split('\n', 1)[0]!
    .trim();
  return line === '' ? null : line;
}

const PHRASE = /(?:final\s+answer|the\s+answer|answer)\s*(?:is|:|=|was)\s*:?\s*/gi;
// "The correct option is" only before a capital choice letter: "the right choice is a
// substitution" is prose (case-sensitive, unlike PHRASE).
const OPTION_PHRASE = /(?:[Cc]orrect|[Rr]ight)\s+(?:option|choice)\s*(?:is|:)\s*(?=\(?[A-J]\)?(?:[\s.,]|$))/g;

/** After the last "final answer is/:" or "the answer is", up to the end of that sentence. */
function lastPhrase(text: string): string | null {
  let from = -1;
  for (const re of [PHRASE, OPTION_PHRASE]) {
    re.lastIndex = 0;
    for (let m = re.exec(text); m !== null; m = re.exec(text)) from = Math.max(from, m.index + m[0].length);
  }
  if (from < 0) return null;
  const nl = text.indexOf('\n', from);
  let a = text.slice(from, nl < 0 ? text.length : nl);
  const block = /^\s*(\$\$?|\\\(|\\\[)/.exec(a);
  if (block) {
    const inner = mathBlocks(a)[0];
    if (inner !== undefined) return inner;
  }
  // The sentence ends at a period that is not a decimal point.
  const end = /\.(?!\d)(?:\s|$)/.exec(a);
  if (end) a = a.slice(0, end.index);
  a = a.replace(/\*\*/g, '').trim();
  return a === '' ? null : a;
}

const BLOCK_OPENER = /\$\$|\\\[|\\\(|(?<!\\)\$/g;
const BLOCK_CLOSER: Record<string, string> = { $$: '$$', '\\[': '\\]', '\\(': '\\)', $: '$' };

/**
 * The contents of every `$…$`, `$$…$$`, `\(…\)` and `\[…\]` block, in order. Linear time: once
 * a delimiter finds no closer, no later one of its kind can, so it is not searched for again.
 */
export function mathBlocks(text: string): string[] {
  const out: string[] = [];
  const exhausted = new Set<string>();
  BLOCK_OPENER.lastIndex = 0;
  for (let m = BLOCK_OPENER.exec(text); m !== null; m = BLOCK_OPENER.exec(text)) {
    const open = m[0];
    if (exhausted.has(open)) continue;
    const close = BLOCK_CLOSER[open]!;
    let end = text.indexOf(close, m.index + open.length);
    // A single `$` never closes on an escaped `\$`.
    while (open === '$' && end > 0 && text[end - 1] === '\\') end = text.indexOf(close, end + 1);
    if (end < 0) {
      exhausted.add(open);
      continue;
    }
    const inner = text.slice(m.index + open.length, end).trim();
    if (inner !== '') out.push(inner);
    BLOCK_OPENER.lastIndex = end + close.length;
  }
  return out;
}

// A number starts a token: the 2 in `AZYUK2A` is part of a word, not an answer.
const NUMBER =
  /(?<![A-Za-z_\d.])-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:\s*\/\s*\d+)?|(?<![A-Za-z_\d])-?\.\d+/g;

function lastNumberIn(text: string): string | null {
  const all = text.match(NUMBER);
  return all && all.length > 0 ? all[all.length - 1]!.trim() : null;
}

/** A text that reads as a bare answer: short, one line, no run of prose words. */
function isBareAnswer(text: string): boolean {
  const t = text.trim();
  if (t === '' || t.length > 300 || t.includes('\n')) return false;
  // Prose: three or more plain words (outside LaTeX commands and \text{}).
  const plain = t
    .replace(/\\(?:begin|end)\s*\{[^{}]*\}(?:\{[^{}]*\})?/g, ' ')
    .replace(/\\(?:text|textnormal|mbox|mathrm|textbf|mathbf)\s*\{[^{}]*\}/g, ' ')
    .replace(/\\[a-zA-Z]+/g, ' ');
  const words = plain.match(/(?:^|[^A-Za-z])[A-Za-z]{2,}(?=[^A-Za-z]|$)/g) ?? [];
  if (words.length === 0) return true;
  // A few words and nothing else is a text answer ("Evelyn", "odd"); words around math are prose.
  return words.length <= 3 && /^[A-Za-z][A-Za-z '-]*$/.test(plain.trim());
}

/** Where the last "final answer" phrase starts, or -1. */
function lastFinalAnswerAt(text: string): number {
  let at = -1;
  const re = /final\s+answer/gi;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) at = m.index;
  return at;
}

/**
 * A phrase's sentence cut to its answer: `The largest $n$ is 34` → `34` (after the last `is`,
 * when what follows is a bare answer).
 */
function phraseAnswer(phrase: string): string {
  if (isBareAnswer(phrase)) return phrase;
  const m = /\b(?:is|are|equals|was)\s+(?!.*\b(?:is|are|equals|was)\s)(.+)$/i.exec(phrase);
  const tail = m?.[1]
    ?.trim()
    .replace(/^\$+|\$+$/g, '')
    .trim();
  return tail && isBareAnswer(tail) ? tail : phrase;
}

/** The final answer of a text, or null when none can be found. */
export function findAnswer(text: string): FoundAnswer | NoAnswer | null {
  const box = lastBoxedAt(text);
  const boxed = box?.answer ?? null;
  if (boxed !== null && typeof boxed === 'object') return { failure: 'unclosed_box' };
  // A "final answer" stated after the last box is the answer (an early box was a step on the way).
  if (boxed !== null && box !== null && lastFinalAnswerAt(text) > box.at) {
    const phrase = lastPhrase(text.slice(box.at));
    if (phrase !== null && /\d/.test(phrase) && !phrase.includes('\\boxed'))
      return { answer: phraseAnswer(phrase), by: 'phrase' };
  }
  if (boxed !== null && boxed !== '') return { answer: boxed, by: 'boxed' };
  const hashes = lastHashes(text);
  if (hashes !== null) return { answer: hashes, by: 'hashes' };
  const phrase = lastPhrase(text);
  if (phrase !== null) return { answer: phraseAnswer(phrase), by: 'phrase' };
  if (isBareAnswer(text)) return { answer: text.trim(), by: 'whole' };
  const blocks = mathBlocks(text);
  if (blocks.length > 0) return { answer: blocks[blocks.length - 1]!, by: 'math_block' };
  const n = lastNumberIn(text);
  return n === null ? null : { answer: n, by: 'last_number' };
}
