import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, writeFileSync } from 'node:fs';
import { mkdir, open, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';

let counter = 0;

/**
 * Write a file so readers never see it half-written: `write` fills a temporary file next to the
 * target, which is fsynced and then renamed over it only on success (and removed on failure), so
 * after a crash the file holds either the old or the new content, never a renamed empty file.
 * Parent folders are created. Returns the absolute target path.
 */
export async function writeAtomically(
  path: string,
  write: (tmpPath: string) => Promise<void>,
): Promise<string> {
  const file = resolve(path);
  await mkdir(dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.${++counter}.tmp`;
  try {
    await write(tmp);
    await fsyncFile(tmp);
    await rename(tmp, file);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
  return file;
}

/** Flush a file's data to disk (without it, a crash after the rename can leave it empty). */
async function fsyncFile(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** `writeAtomically` for data already in memory. */
export function writeFileAtomic(path: string, data: string | Uint8Array): Promise<string> {
  return writeAtomically(path, (tmp) => writeFile(tmp, data));
}

/**
 * Synchronous and durable: the data is fsynced before the rename, so after a crash the file holds
 * either the old or the new content. Used for checkpoint pointers.
 */
export function writeFileAtomicSync(path: string, data: string | Uint8Array): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(tmp, data);
  const fd = openSync(tmp, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
}
