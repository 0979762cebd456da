import { createHash } from 'node:crypto';

/** JSON with object keys sorted, so equal values always hash the same. */
export function stableStringify(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'number' && !Number.isFinite(value)) return JSON.stringify(String(value));
    return JSON.stringify(value) ?? 'null';
  }
  if (ArrayBuffer.isView(value)) return stableStringify(Array.from(value as unknown as ArrayLike<number>));
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(',')}]`;
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj)
    .filter((k) => obj[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${stableStringify(obj[k])}`).join(',')}}`;
}

/** A short, stable content hash (hex). 16 hex chars = 64 bits: collisions are negligible below billions of rows. */
export function contentHash(value: unknown, length = 16): string {
  const text = typeof value === 'string' ? value : stableStringify(value);
  return createHash('sha256').update(text).digest('hex').slice(0, length);
}

/** Id for a task that came without one: hash of what defines it (prompt/messages + answer). */
export function taskContentId(task: {
  prompt?: string | undefined;
  messages?: unknown;
  answer?: string | undefined;
}): string {
  return `t_${contentHash({ p: task.prompt ?? null, m: task.messages ?? null, a: task.answer ?? null })}`;
}
