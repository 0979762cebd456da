import { z } from 'zod';
import type { Task } from '../../core/task.ts';
import { taskText } from '../../core/task.ts';
import type { ProfilePass } from '../operator.ts';
import { type AsciiProfile, textProfile } from './text-profile.ts';

/**
 * Which text of a task an operator looks at: the prompt (or the joined chat when a task has
 * only messages), the reference answer, or both.
 */
export const TextFieldSchema = z.enum(['prompt', 'answer', 'all']);
export type TextField = z.infer<typeof TextFieldSchema>;

/** The text an operator judges. `all` is the prompt text, a newline, then the answer (when there is one). */
export function readText(task: Task, field: TextField): string {
  if (field === 'prompt') return taskText(task);
  if (field === 'answer') return task.answer ?? '';
  return task.answer === undefined ? taskText(task) : `${taskText(task)}\n${task.answer}`;
}

/**
 * A copy of `task` with `fn` applied to the chosen text: the prompt, or every message's content
 * when the task has no prompt; the answer when it has one. Returns the same object when nothing
 * changed, so callers can count changed rows cheaply.
 */
export function mapText(task: Task, field: TextField, fn: (text: string) => string): Task {
  let out = task;
  if (field !== 'answer') {
    if (task.prompt !== undefined) {
      const next = fn(task.prompt);
      if (next !== task.prompt) out = { ...out, prompt: next };
    } else if (task.messages !== undefined) {
      let changed = false;
      const messages = task.messages.map((m) => {
        const content = fn(m.content);
        if (content === m.content) return m;
        changed = true;
        return { ...m, content };
      });
      if (changed) out = { ...out, messages };
    }
  }
  if (field !== 'prompt' && task.answer !== undefined) {
    const next = fn(task.answer);
    if (next !== task.answer) out = { ...out, answer: next };
  }
  return out;
}

/**
 * Apply `fn` to the chosen text of every row; reports how many rows changed as `changed`. `keeps`
 * (optional) answers from a prompt's ASCII profile (text-profile.ts) that `fn` would return the
 * prompt as it is, so the row is passed on without running `fn`.
 */
export function mapTextBatch(
  batch: readonly Task[],
  field: TextField,
  fn: (text: string) => string,
  keeps?: (profile: AsciiProfile) => boolean,
): { rows: Task[]; dropped: never[]; metrics: Record<string, number> } {
  let changed = 0;
  // A loop, not batch.map with a closure made per batch: see filterRows (operators/operator.ts).
  const rows = new Array<Task>(batch.length);
  for (let i = 0; i < batch.length; i++) {
    const task = batch[i]!;
    if (keeps !== undefined && field === 'prompt' && task.prompt !== undefined) {
      const p = textProfile(task, task.prompt);
      if (p !== null && keeps(p)) {
        rows[i] = task;
        continue;
      }
    }
    const out = mapText(task, field, fn);
    if (out !== task) changed++;
    rows[i] = out;
  }
  return { rows, dropped: [], metrics: { changed } };
}

/**
 * The profile pass of a text map step built on `mapTextBatch` with `keeps`: the rows it keeps as
 * they are (its `changed` metric counts none of them). Only a step over the prompt has one.
 */
export function keepsPass(
  field: TextField,
  keeps: (profile: AsciiProfile) => boolean,
): ProfilePass | undefined {
  return field === 'prompt' ? { passes: keeps, metrics: { changed: 0 } } : undefined;
}

/** The profile pass of a filter over the prompt: rows `keeps` says it keeps (filters report no metrics). */
export function filterPass(
  field: TextField,
  keeps: (profile: AsciiProfile) => boolean,
): ProfilePass | undefined {
  return field === 'prompt' ? { passes: keeps, metrics: {} } : undefined;
}
