import { hash } from 'node:crypto';

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
  // The one-shot digest: the same sha256, without a Hash object per call (~1 µs a row at ingest).
  return hash('sha256', text, 'hex').slice(0, length);
}

/** Id for a task that came without one: hash of what defines it (prompt/messages + answer). */
export function taskContentId(task: {
  prompt?: string | undefined;
  messages?: unknown;
  answer?: string | undefined;
}): string {
  // Without messages this is stableStringify's text of { p, m: null, a } written directly (keys
  // sorted a, m, p): the same characters, so the same id, without an object and a key sort per row.
  if (task.messages === undefined || task.messages === null) {
    const a = task.answer === undefined ? 'null' : JSON.stringify(task.answer);
    const p = task.prompt === undefined ? 'null' : JSON.stringify(task.prompt);
    return `t_${contentHash(`{"a":${a},"m":null,"p":${p}}`)}`;
  }
  return `t_${contentHash({ p: task.prompt ?? null, m: task.messages, a: task.answer ?? null })}`;
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
