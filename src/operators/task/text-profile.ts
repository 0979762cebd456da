import type { AsciiProfile } from '../ascii-profile.ts';
import { scanAscii } from './ascii-scan.ts';
import { HiddenSlot } from './hidden-slot.ts';

/**
 * One scan of an ASCII text that answers what the cleaning chain asks of it, row after row:
 * would strip_html, normalize_unicode or normalize_whitespace change it, and how many characters,
 * words, letters/digits and spaces does it hold (length_filter, special_char_ratio_filter,
 * alnum_ratio_filter, the run report). Each of those scanned the same text again (~0.3–0.8 µs a
 * row each); now the first one scans and the rest read the answer kept on the task.
 *
 * The profile rides on the task in a hidden slot (hidden-slot.ts: JSON, structured clone, spread
 * and deep equality never see it) together with the text it describes, so a step that changes the text
 * gets a fresh profile. Texts with any character ≥ U+0080 have no profile: callers use their full
 * functions. Each flag is property-tested against the function it stands in for
 * (tests/operators/task/text-profile.test.ts).
 */
export type { AsciiProfile };
/** The scan itself lives in ascii-scan.ts, in named steps. */
export { scanAscii };

/** What a task carries: the profile of one of its texts, or `{ text }` alone for a non-ASCII text. */
type Kept = AsciiProfile | { readonly text: string; readonly words?: undefined };

/** The profile of `text` (a text of `task`): the one kept on the task when it is for this text, else scanned and kept. */
export function textProfile(task: object, text: string): AsciiProfile | null {
  const kept = HiddenSlot.get(task) as Kept | undefined;
  if (kept !== undefined && kept.text === text)
    return kept.words === undefined ? null : (kept as AsciiProfile);
  const fresh = scanAscii(text);
  HiddenSlot.set(task, fresh ?? { text });
  return fresh;
}

/** The profile kept on `task` for `text`, without scanning (undefined when none is kept). */
export function keptProfile(task: object, text: string): AsciiProfile | null | undefined {
  const kept = HiddenSlot.get(task) as Kept | undefined;
  if (kept === undefined || kept.text !== text) return undefined;
  return kept.words === undefined ? null : (kept as AsciiProfile);
}

/**
 * Int32s a packed profile takes: words, alnum, space, flags, then the dedup key's low 32 bits, its
 * high 21 bits (−1: no key) and the check. The key rides along so the thread that dedups does not
 * hash the text again (at 1M rows ~0.5 s of the main thread's time with a worker).
 */
export const PACKED_PROFILE_INTS = 7;

/** A profile as PACKED_PROFILE_INTS numbers, to hand to another thread; words −1: none. */
export function packProfile(p: AsciiProfile | null | undefined, out: Int32Array, at: number): void {
  if (!p) {
    out.fill(0, at, at + PACKED_PROFILE_INTS);
    out[at] = -1;
    return;
  }
  out[at] = p.words;
  out[at + 1] = p.alnum;
  out[at + 2] = p.space;
  out[at + 3] = (p.noMarkup ? 1 : 0) | (p.printable ? 2 : 0) | (p.whitespaceNormal ? 4 : 0);
  if (p.dedupKey < 0) {
    out[at + 4] = 0;
    out[at + 5] = -1;
    out[at + 6] = 0;
  } else {
    const hi = Math.floor(p.dedupKey / 4294967296);
    out[at + 4] = p.dedupKey - hi * 4294967296;
    out[at + 5] = hi;
    out[at + 6] = p.dedupCheck;
  }
}

/** Keep on `task` the profile another thread packed for `text` (the same characters it scanned). */
export function adoptProfile(task: object, text: string, packed: Int32Array, at: number): void {
  if (packed[at]! < 0 || HiddenSlot.get(task) !== undefined) return;
  const flags = packed[at + 3]!;
  const value: AsciiProfile = {
    text,
    words: packed[at]!,
    alnum: packed[at + 1]!,
    space: packed[at + 2]!,
    noMarkup: (flags & 1) !== 0,
    printable: (flags & 2) !== 0,
    whitespaceNormal: (flags & 4) !== 0,
    dedupKey: packedDedupKey(packed, at),
    dedupCheck: packedDedupCheck(packed, at),
  };
  HiddenSlot.set(task, value);
}

/** The dedup key of a packed profile (−1: none). */
export function packedDedupKey(packed: Int32Array, at: number): number {
  const hi = packed[at + 5]!;
  return hi < 0 ? -1 : hi * 4294967296 + (packed[at + 4]! >>> 0);
}

/** The 32-bit check beside a packed profile's dedup key (0 when it has none). */
export function packedDedupCheck(packed: Int32Array, at: number): number {
  return packed[at + 5]! < 0 ? 0 : packed[at + 6]! >>> 0;
}
