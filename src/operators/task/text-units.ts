/**
 * The one place that decides what a word and a sentence are, for every word- and sentence-level
 * operator. Space-separated text keeps the whitespace rule (fast, and identical to what the
 * English filters always did); a run written in a script without spaces between words (Han,
 * kana, Thai, Lao, Khmer, Myanmar) is split by `Intl.Segmenter`, whose ICU dictionaries know
 * where Chinese, Japanese and Thai words end. Hangul is written with spaces, so Korean stays on
 * the whitespace rule.
 */

/** Scripts written without spaces between words. */
export const UNSPACED_SCRIPT =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;

const WORD_SEGMENTER = new Intl.Segmenter('und', { granularity: 'word' });
const SENTENCE_SEGMENTER = new Intl.Segmenter('und', { granularity: 'sentence' });
const EDGE_PUNCT = /^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu;

/** True when the text has a run that only a dictionary segmenter can split into words. */
export function hasUnspacedScript(text: string): boolean {
  return UNSPACED_SCRIPT.test(text);
}

/** The word-like segments of one whitespace-free chunk (punctuation segments dropped). */
export function segmentWords(chunk: string, out: string[]): void {
  for (const s of WORD_SEGMENTER.segment(chunk)) if (s.isWordLike) out.push(s.segment);
}

/**
 * Lower-cased words. A whitespace-separated token without unspaced-script characters is one word
 * with punctuation trimmed from its ends (empty tokens dropped); a token with them is split by the
 * segmenter (`你是个卖淫女` → 你是, 个, 卖淫, 女).
 */
export function wordTokens(text: string): string[] {
  const out: string[] = [];
  const unspaced = hasUnspacedScript(text);
  for (const raw of text.toLowerCase().split(/\s+/)) {
    if (raw.length === 0) continue;
    if (unspaced && UNSPACED_SCRIPT.test(raw)) {
      segmentWords(raw, out);
      continue;
    }
    const w = raw.replace(EDGE_PUNCT, '');
    if (w.length > 0) out.push(w);
  }
  return out;
}

/**
 * Word count. Space-separated text: runs of non-whitespace (so `2+2=4` is one word, as before).
 * A run with unspaced-script characters counts its segmenter words instead, and at least 1.
 * `countWordUnitsRef` is the definition; this gives the same count in one pass without an array
 * of tokens, and walks each unspaced run's segments with `containing` (no iterator result per
 * segment): the run report counts every landed row's words, and on CJK text this was 40–50 % of a
 * pipeline run's CPU.
 */
export function countWordUnits(text: string, isSpace: (c: number) => boolean): number {
  if (!hasUnspacedScript(text)) return countSpaced(text, isSpace);
  let n = 0;
  const len = text.length;
  for (let i = 0; i < len; ) {
    if (isJsSpace(text.charCodeAt(i))) {
      i++;
      continue;
    }
    // A token: up to the next `\s` (what `split(/\s+/)` cuts at). Unspaced scripts start at U+0E00.
    let end = i;
    let high = false;
    for (; end < len; end++) {
      const c = text.charCodeAt(end);
      if (c >= 0x0e00) {
        if (isJsSpace(c)) break;
        high = true;
      } else if (c === 32 || (c >= 9 && c <= 13) || c === 0xa0) break;
    }
    if (!high) n++;
    else {
      const token = text.slice(i, end);
      n += UNSPACED_SCRIPT.test(token) ? Math.max(1, countSegmentWords(token)) : 1;
    }
    i = end;
  }
  return n;
}

/** The definition `countWordUnits` keeps (tests/operators/task/word-count-fast.test.ts). */
export function countWordUnitsRef(text: string, isSpace: (c: number) => boolean): number {
  if (!hasUnspacedScript(text)) return countSpaced(text, isSpace);
  let n = 0;
  for (const raw of text.split(/\s+/)) {
    if (raw.length === 0) continue;
    if (!UNSPACED_SCRIPT.test(raw)) {
      n++;
      continue;
    }
    const words: string[] = [];
    segmentWords(raw, words);
    n += Math.max(1, words.length);
  }
  return n;
}

/** Runs of characters that are not `isSpace`. */
function countSpaced(text: string, isSpace: (c: number) => boolean): number {
  let n = 0;
  let inWord = false;
  for (let i = 0; i < text.length; i++) {
    if (isSpace(text.charCodeAt(i))) inWord = false;
    else if (!inWord) {
      inWord = true;
      n++;
    }
  }
  return n;
}

/** JavaScript's `\s` (WhiteSpace and LineTerminator), one code unit: what `split(/\s+/)` cuts at. */
export function isJsSpace(c: number): boolean {
  return (
    c === 32 ||
    (c >= 9 && c <= 13) ||
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

/** How many word-like segments `chunk` has: the segments of `segmentWords`, without the array. */
function countSegmentWords(chunk: string): number {
  const segments = WORD_SEGMENTER.segment(chunk);
  let n = 0;
  for (let i = 0; i < chunk.length; ) {
    const s = segments.containing(i)!;
    if (s.isWordLike) n++;
    i = s.index + s.segment.length;
  }
  return n;
}

/** Words as the segmenter sees them, in original case, with their offsets (for rewriting text). */
export function wordSpans(text: string): Array<{ word: string; start: number; end: number }> {
  const out: Array<{ word: string; start: number; end: number }> = [];
  if (!hasUnspacedScript(text)) {
    for (const m of text.matchAll(/\S+/g))
      out.push({ word: m[0], start: m.index, end: m.index + m[0].length });
    return out;
  }
  for (const m of text.matchAll(/\S+/g)) {
    if (!UNSPACED_SCRIPT.test(m[0])) {
      out.push({ word: m[0], start: m.index, end: m.index + m[0].length });
      continue;
    }
    for (const s of WORD_SEGMENTER.segment(m[0]))
      out.push({ word: s.segment, start: m.index + s.index, end: m.index + s.index + s.segment.length });
  }
  return out;
}

/**
 * Sentences, each with its trailing whitespace removed and empty ones dropped. ICU's sentence
 * rules end a sentence at . ! ? and at the CJK full stops 。！？ (no space needed after them).
 * Line breaks also end a sentence (a heading or list item is its own unit).
 */
export function sentences(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split(/\r?\n/)) {
    if (line.trim().length === 0) continue;
    for (const s of SENTENCE_SEGMENTER.segment(line)) {
      const t = s.segment.trim();
      if (t.length > 0) out.push(t);
    }
  }
  return out;
}

/** One line's sentences with their trailing whitespace (joined, they give the line back). */
export function sentenceSegments(line: string): string[] {
  return Array.from(SENTENCE_SEGMENTER.segment(line), (s) => s.segment);
}
