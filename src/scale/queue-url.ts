import type { ConnectionOptions } from 'bullmq';
import { z } from 'zod';
import { ConfigError } from '../core/errors.ts';

/** A Redis address as `--queue` takes it: `redis://[:password@]host[:port][/db]`. */
export const QueueUrlSchema = z
  .string()
  .refine((s) => /^rediss?:\/\//.test(s), { message: 'expected redis://host:port' })
  .transform((s, ctx) => {
    try {
      const u = new URL(s);
      const port = u.port === '' ? 6379 : Number(u.port);
      const db = u.pathname.length > 1 ? Number(u.pathname.slice(1)) : 0;
      if (!Number.isInteger(db) || db < 0)
        throw new Error(`database '${u.pathname.slice(1)}' is not a number`);
      return {
        url: s,
        host: u.hostname || '127.0.0.1',
        port,
        db,
        ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
        tls: u.protocol === 'rediss:',
      };
    } catch (err) {
      ctx.addIssue({ code: 'custom', message: (err as Error).message });
      return z.NEVER;
    }
  });
export type QueueUrl = z.output<typeof QueueUrlSchema>;

/** Parse `--queue`; a bad value is a usage error naming the option (exit 2). */
export function parseQueueUrl(value: string, option = '--queue'): QueueUrl {
  const parsed = QueueUrlSchema.safeParse(value);
  if (!parsed.success)
    throw new ConfigError({
      path: option,
      message: `'${value}' is not a Redis address: ${parsed.error.issues[0]?.message ?? 'invalid'}`,
      hint: 'e.g. redis://127.0.0.1:6379',
    });
  return parsed.data;
}

/** BullMQ/ioredis connection options. `maxRetriesPerRequest: null` is what BullMQ workers require. */
export function connectionOf(q: QueueUrl): ConnectionOptions {
  return {
    host: q.host,
    port: q.port,
    db: q.db,
    ...(q.password ? { password: q.password } : {}),
    ...(q.tls ? { tls: {} } : {}),
    maxRetriesPerRequest: null,
  };
}
