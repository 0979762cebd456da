import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { writeAtomically } from '../core/atomic-file.ts';
import { type JsonValue, JsonValueSchema } from '../core/task.ts';

/**
 * An on-disk cache of model replies, one JSON file per key under `dir/<2 hex>/<sha256>.json`.
 *
 * Why one file per key rather than an append-only JSONL index: a file per key needs no index to
 * load or compact, two processes sharing a folder cannot corrupt each other (each write is an
 * atomic rename of a whole file), and a lookup is one read. The cost is many small files, which is
 * fine for the thousands of rows a data pipeline sends to a judge.
 *
 * Within a process, concurrent `getOrCompute` calls for the same key share one computation, so a
 * batch holding duplicate prompts sends one request.
 */
const EntrySchema = z.object({
  version: z.literal(1),
  key: JsonValueSchema,
  texts: z.array(z.string()),
});

export interface LlmCacheStats {
  hits: number;
  misses: number;
}

/** The canonical JSON of a value: object keys sorted, so equal requests hash equally. */
function canonical(value: JsonValue): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(value[k] as JsonValue)}`).join(',')}}`;
}

/** The cache key of a request description (model, prompt or messages, sampling params). */
export function llmCacheKey(request: JsonValue): string {
  return createHash('sha256').update(canonical(request)).digest('hex');
}

export class LlmCache {
  readonly dir: string;
  readonly #pending = new Map<string, Promise<string[]>>();
  readonly #stats: LlmCacheStats = { hits: 0, misses: 0 };

  constructor(dir: string) {
    this.dir = dir;
  }

  stats(): LlmCacheStats {
    return { ...this.#stats };
  }

  pathOf(hash: string): string {
    return join(this.dir, hash.slice(0, 2), `${hash}.json`);
  }

  /** The cached texts for a request, or undefined (an unreadable entry counts as a miss). */
  async get(request: JsonValue): Promise<string[] | undefined> {
    const hash = llmCacheKey(request);
    let raw: string;
    try {
      raw = await readFile(this.pathOf(hash), 'utf8');
    } catch {
      return undefined;
    }
    try {
      const entry = EntrySchema.parse(JSON.parse(raw));
      // A hash collision or a hand-edited file must not serve another request's reply.
      return canonical(entry.key) === canonical(request) ? entry.texts : undefined;
    } catch {
      return undefined;
    }
  }

  async put(request: JsonValue, texts: readonly string[]): Promise<void> {
    const entry = { version: 1, key: request, texts: [...texts] };
    await writeAtomically(this.pathOf(llmCacheKey(request)), (tmp) => writeFile(tmp, JSON.stringify(entry)));
  }

  /**
   * The cached reply, or `compute()`'s, stored before it is returned. Failures are not cached
   * (a re-run retries them). The second of `{ texts, cached }` says whether no request was sent.
   */
  async getOrCompute(
    request: JsonValue,
    compute: () => Promise<string[]>,
  ): Promise<{ texts: string[]; cached: boolean }> {
    const hash = llmCacheKey(request);
    const pending = this.#pending.get(hash);
    if (pending) {
      this.#stats.hits++;
      return { texts: await pending, cached: true };
    }
    // The first caller of a key owns it from here, before any await: later callers share its
    // disk read and, on a miss, its computation (so which caller computes never depends on timing).
    let fromDisk = false;
    const work = (async () => {
      const hit = await this.get(request);
      if (hit) {
        fromDisk = true;
        this.#stats.hits++;
        return hit;
      }
      this.#stats.misses++; // counted before computing: a failed computation was a miss too
      const texts = await compute();
      await this.put(request, texts);
      return texts;
    })();
    this.#pending.set(hash, work);
    try {
      return { texts: await work, cached: fromDisk };
    } finally {
      this.#pending.delete(hash);
    }
  }
}
