/**
 * word_repetition_filter's ratio for an ASCII text in one scan, with no string made per word or
 * per n-gram: the same words as text-units.ts's `wordTokens` (whitespace-separated tokens,
 * lower-cased, letters/digits kept at both ends) located by their offsets in the text, each n-gram
 * hashed from its words' hashes, the n-grams sorted by hash, and n-grams with equal hashes
 * compared word by word (so a hash collision never counts as a repeat: the ratio is exact).
 * Property-tested against `repetitionRatioOf(wordTokens(text), n)`
 * (tests/operators/task/ascii-word-grams.test.ts).
 */

/** Scratch space reused by every call (one thread runs one call at a time). */
let starts = new Int32Array(256);
let ends = new Int32Array(256);
let wordHashes = new Int32Array(256);
let keys = new Float64Array(256);
let grouped = new Uint8Array(256);

/** More n-grams than this (or a non-ASCII text) leave it to the general path. */
const MAX_GRAMS = 2 ** 20;

const isAsciiSpace = (c: number) => c === 32 || (c >= 9 && c <= 13);
const isAsciiAlnum = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
const lower = (c: number) => (c >= 65 && c <= 90 ? c + 32 : c);

/**
 * The repetition ratio of `text`'s word `n`-grams (n-grams seen more than once, each occurrence
 * counted, over all n-grams; 0 with fewer than n words), or −1 when the text holds a character
 * ≥ U+0080 or too many words (the caller uses the general path).
 */
export function asciiGramRepetition(text: string, n: number): number {
  const words = locateWords(text);
  if (words < 0) return -1;
  const total = words - n + 1;
  if (total <= 0) return 0;
  if (total > MAX_GRAMS) return -1;
  return repeatedGrams(text, n, total) / total;
}

/** Fill starts/ends/wordHashes with the text's words: their count, or −1 for a non-ASCII text. */
function locateWords(text: string): number {
  let count = 0;
  const len = text.length;
  let i = 0;
  while (i < len) {
    let c = text.charCodeAt(i);
    if (c >= 128) return -1;
    if (isAsciiSpace(c)) {
      i++;
      continue;
    }
    // A token: up to the next whitespace; its word is its first to last letter/digit.
    let first = -1;
    let last = -1;
    for (; i < len; i++) {
      c = text.charCodeAt(i);
      if (c >= 128) return -1;
      if (isAsciiSpace(c)) break;
      if (isAsciiAlnum(c)) {
        if (first < 0) first = i;
        last = i;
      }
    }
    if (first >= 0) count = pushWord(text, count, first, last + 1);
  }
  return count;
}

function pushWord(text: string, count: number, start: number, end: number): number {
  if (count === starts.length) growWords(count * 2);
  let h = 0x811c9dc5 ^ (end - start);
  for (let k = start; k < end; k++) h = Math.imul(h ^ lower(text.charCodeAt(k)), 0x01000193);
  starts[count] = start;
  ends[count] = end;
  wordHashes[count] = h;
  return count + 1;
}

function growWords(size: number): void {
  const grow = (a: Int32Array) => {
    const b = new Int32Array(size);
    b.set(a);
    return b;
  };
  starts = grow(starts);
  ends = grow(ends);
  wordHashes = grow(wordHashes);
}

/** How many of the `total` n-grams occur more than once: grams sorted by hash, equal hashes compared. */
function repeatedGrams(text: string, n: number, total: number): number {
  if (keys.length < total) {
    keys = new Float64Array(Math.max(total, keys.length * 2));
    grouped = new Uint8Array(keys.length);
  }
  // key = 32-bit gram hash · 2^20 + gram index: sorting groups equal hashes, index recoverable.
  for (let i = 0; i < total; i++) {
    let h = 0x9e3779b9;
    for (let k = 0; k < n; k++) h = Math.imul(h ^ wordHashes[i + k]!, 0x85ebca6b) ^ (h >>> 15);
    keys[i] = (h >>> 0) * MAX_GRAMS + i;
  }
  const sorted = keys.subarray(0, total).sort();
  let repeated = 0;
  let runStart = 0;
  for (let i = 1; i <= total; i++) {
    if (i < total && Math.floor(sorted[i]! / MAX_GRAMS) === Math.floor(sorted[runStart]! / MAX_GRAMS))
      continue;
    if (i - runStart > 1) repeated += repeatsInRun(text, n, sorted, runStart, i);
    runStart = i;
  }
  return repeated;
}

/** Among grams sorted[from..to) (one hash), how many equal at least one other: groups of equal grams. */
function repeatsInRun(text: string, n: number, sorted: Float64Array, from: number, to: number): number {
  grouped.fill(0, from, to);
  let repeated = 0;
  for (let a = from; a < to; a++) {
    if (grouped[a] !== 0) continue;
    const ga = sorted[a]! % MAX_GRAMS;
    let size = 1;
    for (let b = a + 1; b < to; b++) {
      if (grouped[b] === 0 && gramsEqual(text, n, ga, sorted[b]! % MAX_GRAMS)) {
        grouped[b] = 1;
        size++;
      }
    }
    if (size > 1) repeated += size;
  }
  return repeated;
}

function gramsEqual(text: string, n: number, a: number, b: number): boolean {
  for (let k = 0; k < n; k++) if (!wordsEqual(text, a + k, b + k)) return false;
  return true;
}

function wordsEqual(text: string, a: number, b: number): boolean {
  const sa = starts[a]!;
  const sb = starts[b]!;
  const len = ends[a]! - sa;
  if (ends[b]! - sb !== len || wordHashes[a] !== wordHashes[b]) return false;
  for (let k = 0; k < len; k++)
    if (lower(text.charCodeAt(sa + k)) !== lower(text.charCodeAt(sb + k))) return false;
  return true;
}
