import type { Task } from '../../core/task.ts';
import { taskText } from '../../core/task.ts';
import { keptProfile } from './text-profile.ts';
import { countWords, isSpaceCode } from './text-stats.ts';
import { hasUnspacedScript } from './text-units.ts';

/**
 * Characters (code points) and words (runs of non-whitespace) as `length_filter` counts them
 * (`countChars`, `countWords`), in one pass with a fast path for printable ASCII: this runs on every
 * landed task, and two passes cost a 10M-row run about ten seconds more.
 */
export function textLength(text: string): { chars: number; words: number } {
  let chars = 0;
  let words = 0;
  let inWord = false;
  let maybeUnspaced = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    // A surrogate pair is one character: count only its high half.
    if (c < 0xdc00 || c > 0xdfff) chars++;
    if (c >= 0x0e00) maybeUnspaced = true;
    if ((c > 32 && c < 0x7f) || !isSpaceCode(c)) {
      if (!inWord) {
        inWord = true;
        words++;
      }
    } else inWord = false;
  }
  // CJK/Thai runs are split into dictionary words (text-units.ts); Thai is the lowest such script.
  if (maybeUnspaced && hasUnspacedScript(text)) words = countWords(text);
  return { chars, words };
}

/** What the report needs of each landed task, in columns (JSON-safe: a queued run's workers send it). */
export interface LandedMeasures {
  chars: number[];
  words: number[];
  /** `features.difficulty`, or null when it is not a finite number. */
  difficulty: Array<number | null>;
  /** Index into `tasksets`. */
  taskset: number[];
  tasksets: string[];
}

/** Measure `tasks` as `TaskReportCollector.landed` would count them (its `landedMeasured` counts them later). */
export function measureLanded(tasks: readonly Task[]): LandedMeasures {
  const m: LandedMeasures = { chars: [], words: [], difficulty: [], taskset: [], tasksets: [] };
  const sets = new Map<string, number>();
  for (const task of tasks) {
    const text = taskText(task);
    const kept = keptProfile(task, text);
    const { chars, words } = kept ? { chars: text.length, words: kept.words } : textLength(text);
    m.chars.push(chars);
    m.words.push(words);
    const d = task.features?.difficulty;
    m.difficulty.push(typeof d === 'number' && Number.isFinite(d) ? d : null);
    let k = sets.get(task.taskset);
    if (k === undefined) {
      k = m.tasksets.length;
      sets.set(task.taskset, k);
      m.tasksets.push(task.taskset);
    }
    m.taskset.push(k);
  }
  return m;
}
