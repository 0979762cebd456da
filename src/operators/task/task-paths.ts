import type { JsonObject, JsonValue, Task } from '../../core/task.ts';

/**
 * Dotted paths into a task, as operators' parameters name them: `prompt`, `answer`, `id`,
 * `taskset`, `features.<name>` or `meta.<key>[.<key>…]` (array items by index: `meta.choices.0`).
 */
export type TaskPath =
  | { root: 'prompt' | 'answer' | 'id' | 'taskset' }
  | { root: 'features'; key: string }
  | { root: 'meta'; keys: string[] };

const SCALAR_ROOTS = new Set(['prompt', 'answer', 'id', 'taskset']);

/**
 * Parse a path. A bare name that is none of the top-level fields means `<bare>.<name>`
 * (map_fields reads bare names as meta keys; difficulty as feature names).
 * Returns a message instead of a path when the text cannot name a task field.
 */
export function parseTaskPath(text: string, bare: 'meta' | 'features' = 'meta'): TaskPath | string {
  if (text.length === 0) return 'empty path';
  if (SCALAR_ROOTS.has(text)) return { root: text as 'prompt' | 'answer' | 'id' | 'taskset' };
  const dot = text.indexOf('.');
  const head = dot < 0 ? text : text.slice(0, dot);
  const rest = dot < 0 ? '' : text.slice(dot + 1);
  if (head === 'features') {
    if (rest.length === 0) return `'${text}' names no feature (write features.<name>)`;
    return { root: 'features', key: rest };
  }
  if (head === 'meta') {
    const keys = rest.split('.');
    if (rest.length === 0 || keys.some((k) => k.length === 0)) return `'${text}' names no meta key`;
    return { root: 'meta', keys };
  }
  if (SCALAR_ROOTS.has(head)) return `'${text}': ${head} has no sub-fields`;
  return bare === 'features' ? { root: 'features', key: text } : { root: 'meta', keys: text.split('.') };
}

export function formatTaskPath(path: TaskPath): string {
  if (path.root === 'features') return `features.${path.key}`;
  if (path.root === 'meta') return `meta.${path.keys.join('.')}`;
  return path.root;
}

/** The value at `path`, or undefined when any step is missing. */
export function getTaskValue(task: Task, path: TaskPath): JsonValue | undefined {
  if (path.root === 'features') return task.features[path.key];
  if (path.root === 'meta') {
    let cur: JsonValue | undefined = task.meta;
    for (const key of path.keys) {
      if (cur === null || typeof cur !== 'object') return undefined;
      cur = Array.isArray(cur) ? (/^\d+$/.test(key) ? cur[Number(key)] : undefined) : cur[key];
      if (cur === undefined) return undefined;
    }
    return cur;
  }
  return task[path.root];
}

/** A copy of `meta` with the value at `keys` set (objects along the way are created or copied). */
function setIn(obj: JsonObject, keys: readonly string[], value: JsonValue): JsonObject {
  const [head, ...rest] = keys as [string, ...string[]];
  if (rest.length === 0) return { ...obj, [head]: value };
  const child = obj[head];
  const base: JsonObject =
    child !== null && typeof child === 'object' && !Array.isArray(child) ? child : ({} as JsonObject);
  return { ...obj, [head]: setIn(base, rest, value) };
}

function deleteIn(obj: JsonObject, keys: readonly string[]): JsonObject {
  const [head, ...rest] = keys as [string, ...string[]];
  if (!(head in obj)) return obj;
  if (rest.length === 0) {
    const { [head]: _gone, ...kept } = obj;
    return kept;
  }
  const child = obj[head];
  if (child === null || typeof child !== 'object' || Array.isArray(child)) return obj;
  return { ...obj, [head]: deleteIn(child, rest) };
}

/**
 * A copy of `task` with `value` written at `path`. The caller converts first: features take
 * numbers, the scalar fields take strings.
 */
export function setTaskValue(task: Task, path: TaskPath, value: JsonValue): Task {
  if (path.root === 'features')
    return { ...task, features: { ...task.features, [path.key]: value as number } };
  if (path.root === 'meta') return { ...task, meta: setIn(task.meta, path.keys, value) };
  return { ...task, [path.root]: value as string };
}

/** A copy of `task` without the value at `path` (only meta keys, features and the answer can be removed). */
export function deleteTaskValue(task: Task, path: TaskPath): Task {
  if (path.root === 'features') {
    if (!(path.key in task.features)) return task;
    const { [path.key]: _gone, ...features } = task.features;
    return { ...task, features };
  }
  if (path.root === 'meta') return { ...task, meta: deleteIn(task.meta, path.keys) };
  if (path.root === 'answer') {
    const { answer: _gone, ...rest } = task;
    return rest;
  }
  return task;
}

/** A number from a JSON value: numbers as they are, numeric strings parsed; anything else undefined. */
export function toNumber(value: JsonValue | undefined): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'string') {
    const t = value.trim().replace(/,/g, '');
    if (!/^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(t)) return undefined;
    const n = Number(t);
    return Number.isFinite(n) ? n : undefined;
  }
  if (typeof value === 'boolean') return value ? 1 : 0;
  return undefined;
}
