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

/**
 * A fast non-cryptographic 64-bit string hash (two 32-bit multiply-xorshift lanes), as 16 hex chars.
 * For change detection and dedup keys on hot paths, where sha256's per-call setup dominates.
 */
export function fastHash64(text: string, seed = 0): string {
  let h1 = 0xdeadbeef ^ seed;
  let h2 = 0x41c6ce57 ^ seed;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (h2 >>> 0).toString(16).padStart(8, '0') + (h1 >>> 0).toString(16).padStart(8, '0');
}
