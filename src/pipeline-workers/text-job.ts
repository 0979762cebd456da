import type { Task } from '../core/task.ts';
import type { StepRejection } from '../operators/graph.ts';

/**
 * The hand-over for a chain of text-only steps (TEXT_ONLY_OPERATORS: they read and write a task's
 * prompt, messages and answer, nothing else). The main thread, which maps the records anyway,
 * sends each task's texts only, and the worker answers with which rows it kept, the few texts it
 * changed, and what it dropped, by index: the main thread keeps its own task objects for every
 * unchanged row. Sending whole records out and whole rows back (a structured clone out, JSON
 * back) cost ~4 µs a row on the main thread, more than the steps themselves.
 */
export interface TextJob {
  ids: string[];
  prompts: Array<string | undefined>;
  answers: Array<string | undefined>;
  messages: Array<Task['messages'] | undefined>;
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
  changes: TextChange[];
  /** Drops in the order the steps reported them; a dropped row's changed texts are in `changes`. */
  rejected: Array<{ i: number; step: string; reason: string }>;
}

export function toTextJob(tasks: readonly Task[]): TextJob {
  const n = tasks.length;
  const job: TextJob = {
    ids: new Array(n),
    prompts: new Array(n),
    answers: new Array(n),
    messages: new Array(n),
  };
  for (let i = 0; i < n; i++) {
    const t = tasks[i]!;
    job.ids[i] = t.id;
    job.prompts[i] = t.prompt;
    job.answers[i] = t.answer;
    job.messages[i] = t.messages;
  }
  return job;
}

/** Where a worker-side row came from (an enumerable symbol: spread copies carry it along). */
const INDEX = Symbol('textJobIndex');
type Indexed = Task & { [INDEX]: number };

/** The worker's tasks: texts only, each knowing its index. */
export function fromTextJob(job: TextJob): Task[] {
  const tasks: Task[] = new Array(job.ids.length);
  for (let i = 0; i < job.ids.length; i++) {
    const t: Indexed = { id: job.ids[i]!, taskset: '', features: {}, meta: {}, [INDEX]: i };
    if (job.prompts[i] !== undefined) t.prompt = job.prompts[i];
    if (job.messages[i] !== undefined) t.messages = job.messages[i];
    if (job.answers[i] !== undefined) t.answer = job.answers[i];
    tasks[i] = t;
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
  const changes: TextChange[] = [];
  for (let k = 0; k < out.rows.length; k++) {
    const row = out.rows[k]!;
    const i = (row as Indexed)[INDEX];
    kept[k] = i;
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
  return { kept, changes, rejected };
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
  for (let k = 0; k < reply.kept.length; k++) out[k] = at(reply.kept[k]!);
  return {
    tasks: out,
    rejected: reply.rejected.map((r) => ({ step: r.step, row: at(r.i), reason: r.reason })),
  };
}
