import type { Task } from '../../core/task.ts';
import { type DedupKeyOptions, dedupKeyHash } from './dedup-key.ts';
import type { TextField } from './text-fields.ts';
import { readText } from './text-fields.ts';
import { keptProfile } from './text-profile.ts';

/**
 * exact_dedup's per-row half: a task's key hash (normalising and hashing its text, most of
 * exact_dedup's cost) depends on its text and the params only, so workers compute it while the
 * main thread keeps the one global, ordered key set. `key` names the params a hash depends on.
 */
export class ExactDedupKeyer {
  readonly key: string;
  readonly field: TextField;
  private readonly opts: DedupKeyOptions;
  /** Whether an ASCII profile's hash (text-profile.ts: the default key's) is this key's hash. */
  readonly profiled: boolean;

  constructor(p: DedupKeyOptions & { field: TextField }) {
    const { field, ...opts } = p;
    this.field = field;
    this.opts = opts as DedupKeyOptions;
    this.profiled = field === 'prompt' && p.lowercase && p.stripPunctuation && p.whitespace === 'collapse';
    this.key = JSON.stringify([field, p.unicode, p.lowercase, p.stripPunctuation, p.whitespace]);
  }

  /** The key hashes of `tasks`, in order (to hand to another thread). */
  hashAll(tasks: readonly Task[]): { keys: Float64Array; checks: Uint32Array } {
    const keys = new Float64Array(tasks.length);
    const checks = new Uint32Array(tasks.length);
    for (let i = 0; i < tasks.length; i++) {
      const task = tasks[i]!;
      const text = readText(task, this.field);
      // A text step has usually profiled this very text, hash included.
      const kept = this.profiled ? keptProfile(task, text) : undefined;
      if (kept != null && kept.dedupKey >= 0) {
        keys[i] = kept.dedupKey;
        checks[i] = kept.dedupCheck;
        continue;
      }
      const h = dedupKeyHash(text, this.opts);
      keys[i] = h.key;
      checks[i] = h.check;
    }
    return { keys, checks };
  }
}

/**
 * Key hashes computed elsewhere (a worker), carried on the task object itself under a symbol (JSON,
 * structured clone and Object.keys never see it). A WeakMap holding one entry per row made every
 * GC of the main thread trace its ephemerons: ~4 µs a row of GC with a worker. exact_dedup uses a
 * prepared hash only when the params key and the task's current text are the ones it was made for.
 */
const PREPARED = Symbol('exactDedupKey');
type Prepared = { params: string; text: string; key: number; check: number };
type Carrier = { [PREPARED]?: Prepared | undefined };

/**
 * Rows given a prepared key and not yet read back. While none are, nothing is looked up on a row (a
 * copy made by spreading carries the key too, so this may undercount: a key not looked up is then
 * computed again, the same value).
 */
let outstanding = 0;

export function prepareExactKey(task: Task, params: string, text: string, key: number, check: number): void {
  if ((task as Carrier)[PREPARED] === undefined) outstanding++;
  (task as Carrier)[PREPARED] = { params, text, key, check };
}

export function preparedExactKey(
  task: Task,
  params: string,
  text: string,
): { key: number; check: number } | undefined {
  // A property missing on the row is a slow lookup on rows of many shapes (~0.1 µs a row).
  if (outstanding <= 0) return undefined;
  const p = (task as Carrier)[PREPARED];
  if (p !== undefined) {
    outstanding--;
    (task as Carrier)[PREPARED] = undefined;
  }
  if (p === undefined || p.params !== params || p.text !== text) return undefined;
  return p;
}
