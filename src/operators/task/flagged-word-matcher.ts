import { UNSPACED_SCRIPT } from './text-units.ts';

const WORD_RUN = /[\p{L}\p{N}_]+/gu;
const SINGLE_WORD = /^[\p{L}\p{N}_]+$/u;
const HANGUL = /\p{Script=Hangul}/u;
/** A run of katakana (with the prolonged-sound mark): one loanword or name, whatever ICU splits. */
const KATAKANA_WORD = /^[\p{Script=Katakana}\u30fc]+$/u;
const WORD_SEGMENTER = new Intl.Segmenter('und', { granularity: 'word' });

interface Segment {
  word: string;
  start: number;
  end: number;
}

/**
 * The segmenter's words of a lower-cased text, with offsets. ICU cuts katakana runs at words it
 * knows (`エロイカ` → エロ | イカ), so adjacent all-katakana words are joined back into one.
 */
function segmenterWords(lower: string): Segment[] {
  const out: Segment[] = [];
  for (const s of WORD_SEGMENTER.segment(lower)) {
    if (!s.isWordLike) continue;
    const seg = { word: s.segment, start: s.index, end: s.index + s.segment.length };
    const last = out[out.length - 1];
    if (last && last.end === seg.start && KATAKANA_WORD.test(last.word) && KATAKANA_WORD.test(seg.word)) {
      last.word += seg.word;
      last.end = seg.end;
    } else out.push(seg);
  }
  return out;
}

/**
 * Finds list entries in text: whole words only (an entry never matches inside a longer word),
 * case-insensitive; multi-word entries match across any whitespace. Entries in scripts without
 * spaces (Chinese, Japanese, Thai) match whole segmenter words, or a run of adjacent ones
 * (`卖淫女` is 卖淫 + 女) — never part of a word, so `エロ` is not found in `エロイカ`. Korean
 * entries match at the start of a space-separated word, since particles attach after it
 * (`욕설을` holds `욕설`).
 */
export class FlaggedWordMatcher {
  private readonly singles: Set<string>;
  private readonly phrases: RegExp | null;
  /** Unspaced-script entries without their spaces, and the longest one's length. */
  private readonly segmented: Set<string>;
  private readonly segmentedMax: number;
  private readonly korean: Set<string>;
  private readonly koreanMax: number;

  constructor(entries: readonly string[]) {
    const all = [...new Set(entries.map((w) => w.trim().toLowerCase()).filter((w) => w.length > 0))];
    const unspaced = all.filter((w) => UNSPACED_SCRIPT.test(w));
    this.segmented = new Set(unspaced.map((w) => w.replace(/\s+/g, '')));
    this.segmentedMax = Math.max(0, ...[...this.segmented].map((w) => w.length));
    this.korean = new Set(all.filter((w) => !UNSPACED_SCRIPT.test(w) && HANGUL.test(w)));
    this.koreanMax = Math.max(0, ...[...this.korean].map((w) => w.length));
    const words = all.filter((w) => !UNSPACED_SCRIPT.test(w) && !HANGUL.test(w));
    this.singles = new Set(words.filter((w) => SINGLE_WORD.test(w)));
    const phrases = words
      .filter((w) => !SINGLE_WORD.test(w))
      .map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/\s+/g, '\\s+'));
    this.phrases =
      phrases.length === 0
        ? null
        : new RegExp(`(?<![\\p{L}\\p{N}_])(?:${phrases.join('|')})(?![\\p{L}\\p{N}_])`, 'giu');
  }

  /** Every match, lower-cased, in order of appearance within each kind (words, phrases, CJK/Thai, Korean). */
  matches(text: string): string[] {
    const found: string[] = [];
    const lower = text.toLowerCase();
    if (this.singles.size > 0)
      for (const m of lower.matchAll(WORD_RUN)) if (this.singles.has(m[0])) found.push(m[0]);
    if (this.phrases) for (const m of lower.matchAll(this.phrases)) found.push(m[0].replace(/\s+/g, ' '));
    if (this.segmented.size > 0 && UNSPACED_SCRIPT.test(lower)) this.segmentedMatches(lower, found);
    if (this.korean.size > 0 && HANGUL.test(lower)) this.koreanMatches(lower, found);
    return found;
  }

  /** The longest entry starting at each word, over words separated by nothing or spaces. */
  private segmentedMatches(lower: string, found: string[]): void {
    const words = segmenterWords(lower);
    let i = 0;
    while (i < words.length) {
      let joined = '';
      let best = -1;
      for (let j = i; j < words.length; j++) {
        if (j > i && lower.slice(words[j - 1]!.end, words[j]!.start).trim() !== '') break;
        joined += words[j]!.word;
        if (joined.length > this.segmentedMax) break;
        if (this.segmented.has(joined)) best = j;
      }
      if (best < 0) {
        i++;
        continue;
      }
      found.push(
        words
          .slice(i, best + 1)
          .map((w) => w.word)
          .join(''),
      );
      i = best + 1;
    }
  }

  /** Each space-separated word that starts with a Korean entry (the longest). */
  private koreanMatches(lower: string, found: string[]): void {
    for (const m of lower.matchAll(/\S+/g)) {
      for (let len = Math.min(this.koreanMax, m[0].length); len > 0; len--) {
        const head = m[0].slice(0, len);
        if (this.korean.has(head)) {
          found.push(head);
          break;
        }
      }
    }
  }
}
