import type { Task } from '../core/task.ts';
import type { StepRejection } from '../operators/graph.ts';
import {
  adoptProfile,
  keptProfile,
  PACKED_PROFILE_INTS,
  packProfile,
} from '../operators/task/text-profile.ts';

/**
 * The hand-over for a chain of text-only steps (operators flagged `textOnly`: they read and write a task's
 * prompt, messages and answer, nothing else). The main thread, which maps the records anyway,
 * sends each task's texts only, and the worker answers with which rows it kept, the few texts it
 * changed, and what it dropped, by index: the main thread keeps its own task objects for every
 * unchanged row. Sending whole records out and whole rows back (a structured clone out, JSON
 * back) cost ~4 µs a row on the main thread, more than the steps themselves.
 */
export interface TextJob {
  /** Every prompt, then every answer, end to end: one string to copy instead of 2n small ones. */
  text: string;
  /** Per row, the prompt's length in `text` (-1: no prompt); then the answers' the same way. */
  promptLength: Int32Array;
  answerLength: Int32Array;
  /** Per row its chat messages, or null when no row has any. */
  messages: Array<Task['messages'] | undefined> | null;
}

/** A row's texts after the steps, where they differ from what was sent. */
export interface TextChange {
  i: number;
  prompt?: string;
  answer?: string;
  messages?: Task['messages'];
}

export interface TextReply {
  /** Indices of the rows kept, in output order. */
  kept: Int32Array;
  /**
   * Per kept row, the ASCII profile of its prompt the steps made (text-profile.ts),
   * PACKED_PROFILE_INTS numbers each: the main thread keeps it on its row, so the run report need
   * not count words again nor exact_dedup hash the prompt again.
   */
  profiles: Int32Array;
  changes: TextChange[];
  /** Drops in the order the steps reported them; a dropped row's changed texts are in `changes`. */
  rejected: Array<{ i: number; step: string; reason: string }>;
}

export function toTextJob(tasks: readonly Task[]): TextJob {
  const n = tasks.length;
  const parts: string[] = [];
  const promptLength = new Int32Array(n);
  const answerLength = new Int32Array(n);
  let messages: TextJob['messages'] = null;
  for (let i = 0; i < n; i++) {
    const p = tasks[i]!.prompt;
    if (p === undefined) promptLength[i] = -1;
    else {
      promptLength[i] = p.length;
      parts.push(p);
    }
    const m = tasks[i]!.messages;
    if (m !== undefined) {
      messages ??= new Array(n);
      messages[i] = m;
    }
  }
  for (let i = 0; i < n; i++) {
    const a = tasks[i]!.answer;
    if (a === undefined) answerLength[i] = -1;
    else {
      answerLength[i] = a.length;
      parts.push(a);
    }
  }
  return { text: parts.join(''), promptLength, answerLength, messages };
}

/** Where a worker-side row came from (an enumerable symbol: spread copies carry it along). */
const INDEX = Symbol('textJobIndex');
type Indexed = Task & { [INDEX]: number };

/**
 * The worker's tasks: texts only, each knowing its index. Text-only steps never read an id, a
 * taskset, features or meta (the `textOnly` flag's contract), so those are left empty here.
 */
export function fromTextJob(job: TextJob): Task[] {
  const n = job.promptLength.length;
  const tasks: Task[] = new Array(n);
  let at = 0;
  for (let i = 0; i < n; i++) {
    const t: Indexed = { id: '', taskset: '', features: {}, meta: {}, [INDEX]: i };
    const len = job.promptLength[i]!;
    if (len >= 0) {
      t.prompt = job.text.slice(at, at + len);
      at += len;
    }
    const m = job.messages?.[i];
    if (m !== undefined) t.messages = m;
    tasks[i] = t;
  }
  for (let i = 0; i < n; i++) {
    const len = job.answerLength[i]!;
    if (len >= 0) {
      (tasks[i] as Indexed).answer = job.text.slice(at, at + len);
      at += len;
    }
  }
  return tasks;
}

function changeOf(sent: Task, row: Task, i: number): TextChange | null {
  const change: TextChange = { i };
  if (row.prompt !== sent.prompt) change.prompt = row.prompt!;
  if (row.answer !== sent.answer) change.answer = row.answer!;
  if (row.messages !== sent.messages) change.messages = row.messages!;
  return Object.keys(change).length > 1 ? change : null;
}

/** The worker's reply for the rows `sent` (fromTextJob) after the steps. */
export function toTextReply(
  sent: readonly Task[],
  out: { rows: readonly Task[]; rejected: readonly StepRejection<Task>[] },
): TextReply {
  const kept = new Int32Array(out.rows.length);
  const profiles = new Int32Array(out.rows.length * PACKED_PROFILE_INTS);
  const changes: TextChange[] = [];
  for (let k = 0; k < out.rows.length; k++) {
    const row = out.rows[k]!;
    const i = (row as Indexed)[INDEX];
    kept[k] = i;
    packProfile(
      row.prompt === undefined ? undefined : keptProfile(row, row.prompt),
      profiles,
      k * PACKED_PROFILE_INTS,
    );
    if (row !== sent[i]) {
      const c = changeOf(sent[i]!, row, i);
      if (c) changes.push(c);
    }
  }
  const rejected = out.rejected.map((r) => {
    const i = (r.row as Indexed)[INDEX];
    if (r.row !== sent[i]) {
      const c = changeOf(sent[i]!, r.row, i);
      if (c) changes.push(c);
    }
    return { i, step: r.step, reason: r.reason };
  });
  return { kept, profiles, changes, rejected };
}

/** The main thread's rows and drops from a reply: its own objects, with the changed texts put in. */
export function applyTextReply(
  tasks: readonly Task[],
  reply: TextReply,
): { tasks: Task[]; rejected: StepRejection<Task>[] } {
  const changed = new Map<number, Task>();
  for (const c of reply.changes) {
    // The same spread an operator's mapText makes: the keys keep their order.
    let t = tasks[c.i]!;
    if ('prompt' in c) t = { ...t, prompt: c.prompt! };
    if ('messages' in c) t = { ...t, messages: c.messages! };
    if ('answer' in c) t = { ...t, answer: c.answer! };
    changed.set(c.i, t);
  }
  const at = (i: number) => (changed.size > 0 ? (changed.get(i) ?? tasks[i]!) : tasks[i]!);
  const out: Task[] = new Array(reply.kept.length);
  for (let k = 0; k < reply.kept.length; k++) {
    const t = at(reply.kept[k]!);
    if (t.prompt !== undefined) adoptProfile(t, t.prompt, reply.profiles, k * PACKED_PROFILE_INTS);
    out[k] = t;
  }
  return {
    tasks: out,
    rejected: reply.rejected.map((r) => ({ step: r.step, row: at(r.i), reason: r.reason })),
  };
}
