import type { Task } from '../../core/task.ts';
import { type DedupKeyOptions, dedupKeyHash } from './dedup-key.ts';
import type { TextField } from './text-fields.ts';
import { readText } from './text-fields.ts';

/**
 * exact_dedup's per-row half: a task's key hash (normalising and hashing its text, most of
 * exact_dedup's cost) depends on its text and the params only, so workers compute it while the
 * main thread keeps the one global, ordered key set. `key` names the params a hash depends on.
 */
export class ExactDedupKeyer {
  readonly key: string;
  readonly field: TextField;
  private readonly opts: DedupKeyOptions;

  constructor(p: DedupKeyOptions & { field: TextField }) {
    const { field, ...opts } = p;
    this.field = field;
    this.opts = opts as DedupKeyOptions;
    this.key = JSON.stringify([field, p.unicode, p.lowercase, p.stripPunctuation, p.whitespace]);
  }

  /** The key hashes of `tasks`, in order (to hand to another thread). */
  hashAll(tasks: readonly Task[]): { keys: Float64Array; checks: Uint32Array } {
    const keys = new Float64Array(tasks.length);
    const checks = new Uint32Array(tasks.length);
    for (let i = 0; i < tasks.length; i++) {
      const h = dedupKeyHash(readText(tasks[i]!, this.field), this.opts);
      keys[i] = h.key;
      checks[i] = h.check;
    }
    return { keys, checks };
  }
}

/**
 * Key hashes computed elsewhere (a worker), keyed by the task object. exact_dedup uses one only
 * when the params key and the task's current text are the ones it was computed for.
 */
const PREPARED = new WeakMap<Task, { params: string; text: string; key: number; check: number }>();

export function prepareExactKey(task: Task, params: string, text: string, key: number, check: number): void {
  PREPARED.set(task, { params, text, key, check });
}

export function preparedExactKey(
  task: Task,
  params: string,
  text: string,
): { key: number; check: number } | undefined {
  const p = PREPARED.get(task);
  if (p === undefined || p.params !== params || p.text !== text) return undefined;
  PREPARED.delete(task);
  return p;
}
