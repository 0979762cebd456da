/**
 * How many of a word list's n-grams occur more than once (each occurrence counted), without a
 * joined string per n-gram: each word is hashed once, each window's hash combines its words'
 * hashes, and a window whose hash is already in the open-addressing table is compared word by
 * word with that slot's first window, so a hash collision never merges two different n-grams
 * (-1 then: the caller counts with strings). Same count as word-repetition-filter.ts's Map.
 */
import { WindowSlots } from './window-slots.ts';

let wordHash = new Int32Array(256);
const slots = new WindowSlots(512);

function hashWord(w: string): number {
  let h = 0x811c9dc5 ^ w.length;
  for (let i = 0; i < w.length; i++) h = Math.imul(h ^ w.charCodeAt(i), 0x01000193);
  return h;
}

function sameWindow(words: readonly string[], a: number, b: number, n: number): boolean {
  for (let j = 0; j < n; j++) if (words[a + j] !== words[b + j]) return false;
  return true;
}

/** Occurrences of repeated n-grams among the `total` (≥ 1) n-grams of `words`, or -1 (see above). */
export function repeatedGramsByHash(words: readonly string[], n: number, total: number): number {
  if (wordHash.length < words.length) wordHash = new Int32Array(words.length * 2);
  for (let i = 0; i < words.length; i++) wordHash[i] = hashWord(words[i]!);
  slots.begin(total);
  let repeated = 0;
  for (let i = 0; i < total; i++) {
    let h = 0x9e3779b1;
    for (let j = 0; j < n; j++) h = Math.imul(h ^ wordHash[i + j]!, 0x85ebca6b) ^ (h >>> 13);
    const first = slots.place(h, i);
    if (first < 0) continue;
    if (!sameWindow(words, first, i, n)) return -1;
    // The second occurrence counts the first one too.
    repeated += slots.repeat() === 2 ? 2 : 1;
  }
  return repeated;
}
