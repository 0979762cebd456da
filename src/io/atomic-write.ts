import { mkdir, rename, rm } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';

let counter = 0;

/**
 * Write a file so readers never see it half-written: `write` fills a temporary file next to the
 * target, which is renamed over it only on success (and removed on failure). Parent folders are
 * created. Returns the absolute target path.
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
    await rename(tmp, file);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
  return file;
}
