/**
 * Data-Juicer's character n-gram repetition ratio (char-repetition-filter.ts) without a string per
 * n-gram: each window of n code points is hashed into an open-addressing table, and a window
 * whose hash is already there is compared code point by code point with that slot's first window,
 * so a hash collision never merges two different n-grams (the text then takes the string path:
 * -1). Same counts, same ratio.
 */
import { WindowSlots } from './window-slots.ts';

let codes = new Uint32Array(1024);
const slots = new WindowSlots(2048);
let repeatedCounts = new Int32Array(1024);

/** The text's code points into `codes` (grown as needed); how many. */
function codePoints(text: string): number {
  if (codes.length < text.length) codes = new Uint32Array(text.length * 2);
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        codes[n++] = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
        i++;
        continue;
      }
    }
    codes[n++] = c;
  }
  return n;
}

function windowHash(start: number, n: number): number {
  let h = 0x811c9dc5;
  for (let j = start; j < start + n; j++) h = Math.imul(h ^ codes[j]!, 0x01000193);
  h ^= h >>> 15;
  h = Math.imul(h, 0x2c1b3c6d);
  return (h ^ (h >>> 12)) >>> 0;
}

function sameWindow(a: number, b: number, n: number): boolean {
  for (let j = 0; j < n; j++) if (codes[a + j] !== codes[b + j]) return false;
  return true;
}

/**
 * The ratio for `text` and n, or -1 when this path cannot decide it exactly (two different
 * n-grams with the same hash): the caller takes the string path then.
 */
export function charRepetitionByHash(text: string, n: number): number {
  const len = codePoints(text);
  const total = len - n + 1;
  if (total <= 0) return 0;
  slots.begin(total);
  let distinct = 0;
  for (let i = 0; i < total; i++) {
    const first = slots.place(windowHash(i, n) | 0, i);
    if (first < 0) distinct++;
    else if (sameWindow(first, i, n)) slots.repeat();
    else return -1;
  }
  // The k most frequent n-grams are all repeated ones (k never exceeds their number).
  if (repeatedCounts.length < total) repeatedCounts = new Int32Array(total * 2);
  const repeated = slots.repeatedCounts(repeatedCounts);
  const k = Math.min(Math.floor(Math.sqrt(distinct)), repeated);
  if (k === 0) return 0;
  const counts = repeatedCounts.subarray(0, repeated).sort();
  let top = 0;
  for (let i = 0; i < k; i++) top += counts[repeated - 1 - i]!;
  return top / total;
}
