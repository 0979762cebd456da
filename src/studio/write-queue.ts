import { closeSync, existsSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { HttpError } from '../serve/http-error.ts';
import { isDatabaseUri } from '../store/connection.ts';

/**
 * Studio writes run one at a time: in this process (a chain), and across Studios on one local
 * database (a lock file in the database folder). The check an edit makes (is the etag still
 * current?) and the write that follows cannot interleave with another Studio's, so a refused edit
 * is refused before anything is written — LanceDB commits a version even for a conditional write
 * that matches nothing, which would leave an empty version behind.
 */
let tail: Promise<unknown> = Promise.resolve();

/** The lock file of Studio writes in a local database folder. */
export const WRITE_LOCK = '.winnow-studio-write.lock';
const WAIT_MS = 30_000;
const POLL_MS = 25;

interface LockHolder {
  pid: number;
  host: string;
  at: string;
}

function holderOf(path: string): LockHolder | null {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as LockHolder;
  } catch {
    return null;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Take the lock file, waiting while a live Studio holds it; a dead holder's lock on this host is taken over. */
async function acquire(path: string): Promise<() => void> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    try {
      const fd = openSync(path, 'wx');
      writeSync(fd, JSON.stringify({ pid: process.pid, host: hostname(), at: new Date().toISOString() }));
      closeSync(fd);
      return () => {
        if (holderOf(path)?.pid === process.pid) unlinkSync(path);
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const holder = holderOf(path);
    if (holder && holder.host === hostname() && !alive(holder.pid)) {
      if (existsSync(path)) unlinkSync(path);
      continue;
    }
    if (Date.now() > deadline)
      throw new HttpError({
        status: 409,
        code: 'busy',
        message: `another Studio (pid ${holder?.pid ?? '?'} on ${holder?.host ?? '?'}) has been writing to this database for over ${WAIT_MS / 1000} s; nothing was written`,
        hint: `try again; if no Studio is running, remove ${path}`,
      });
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

export function serialized<T>(ctx: { dbDir: string }, fn: () => Promise<T>): Promise<T> {
  const locked = async () => {
    if (isDatabaseUri(ctx.dbDir) || !existsSync(ctx.dbDir)) return fn();
    const release = await acquire(join(ctx.dbDir, WRITE_LOCK));
    try {
      return await fn();
    } finally {
      release();
    }
  };
  const run = tail.then(locked, locked);
  tail = run.catch(() => undefined);
  return run;
}
