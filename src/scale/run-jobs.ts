import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { z } from 'zod';
import { errorMessage } from '../core/errors.ts';
import type { RunRecord } from '../store/run-table.ts';
import { connectionOf, parseQueueUrl, type QueueUrl } from './queue-url.ts';
import { ROLLOUT_QUEUE, rolloutJobPrefix } from './rollout-job.ts';

/** What a queued run's record keeps of its queue, so `gc` and `--overwrite` can remove its jobs. */
export const QueuedRunFieldsSchema = z.object({
  /** The Redis server, without a password: `redis://host:port/db`. */
  server: z.string().regex(/^rediss?:\/\//),
  /** The run's context key (rollout-job.ts): its jobs' ids start with its id. */
  context: z.string().regex(/^winnow:context:[0-9a-f]{16}$/),
});
export type QueuedRunFields = z.infer<typeof QueuedRunFieldsSchema>;

/** A Redis address as a run record may keep it: no password. */
export function serverOf(u: QueueUrl): string {
  return `${u.tls ? 'rediss' : 'redis'}://${u.host}:${u.port}/${u.db}`;
}

/** The queue fields of a run record, or undefined for a run that was not queued (or recorded before they were kept). */
export function queuedRunFields(record: RunRecord): QueuedRunFields | undefined {
  try {
    const parsed = QueuedRunFieldsSchema.safeParse((JSON.parse(record.summary) as { queue?: unknown }).queue);
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** Every key matching `pattern`, by SCAN (never KEYS: the server stays responsive). */
async function scanKeys(redis: Redis, pattern: string): Promise<string[]> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    keys.push(...batch);
    cursor = next;
  } while (cursor !== '0');
  return keys;
}

/**
 * Remove the queued rollout jobs, stored context and published weights of a run that `gc` or
 * `--overwrite` removed. Best effort: the answer is one line saying what was removed, or why
 * nothing could be (such jobs are never reused, since their keys name the run's start and config,
 * and BullMQ drops them 7 days after they finished). `via` is the address this command was given
 * (`--queue`); it is used when it names the recorded server, as it may carry the password.
 */
export async function removeQueuedRunJobs(record: RunRecord, via?: QueueUrl): Promise<string | undefined> {
  const fields = queuedRunFields(record);
  if (!fields) return undefined;
  const url = via && serverOf(via) === fields.server ? via : parseQueueUrl(fields.server);
  const where = `${url.host}:${url.port}`;
  const redis = new Redis({
    ...(connectionOf(url) as object),
    lazyConnect: true,
    connectTimeout: 3_000,
    maxRetriesPerRequest: 1,
    retryStrategy: () => null,
  });
  // Failures reach us through the failed command; ioredis would also print them unhandled.
  redis.on('error', () => undefined);
  let queue: Queue | undefined;
  try {
    await redis.connect();
    // Its own connection (BullMQ manages it), opened once the server answered ours.
    const q = new Queue(ROLLOUT_QUEUE, { connection: connectionOf(url) });
    queue = q;
    q.on('error', () => undefined);
    const prefix = `${q.keys['']}${rolloutJobPrefix(fields.context)}`;
    // A job is the hash `bull:<queue>:<id>`; its `:logs`/`:lock` keys go with it.
    const ids = (await scanKeys(redis, `${prefix}*`))
      .filter((k) => !k.slice(prefix.length).includes(':'))
      .map((k) => k.slice(q.keys[''].length));
    let removed = 0;
    for (const id of ids) removed += await q.remove(id);
    const own = await scanKeys(redis, `${fields.context}:*`);
    await redis.del(fields.context, ...own);
    const held = ids.length - removed;
    return `removed ${removed} queued rollout job(s) of run '${record.runId}' from ${where}${held > 0 ? `; ${held} a worker still holds expire within 7 days` : ''}`;
  } catch (err) {
    return `could not remove the queued jobs of run '${record.runId}' from Redis at ${where} (${errorMessage(err)}); they are never reused (their keys name the run's start and config) and expire within 7 days`;
  } finally {
    await queue?.close().catch(() => undefined);
    redis.disconnect();
  }
}
