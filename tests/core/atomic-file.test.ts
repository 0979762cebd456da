import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { writeAtomically, writeFileAtomic } from '../../src/core/atomic-file.ts';
import { tempDir } from '../helpers/tmp.ts';

const root = tempDir('winnow-atomic-');

describe('writeFileAtomic (async)', () => {
  it('replaces the whole file, creates parent folders and leaves no temporary file', async () => {
    const file = join(root, 'a', 'b', 'state.json');
    expect(await writeFileAtomic(file, '{"v":1}')).toBe(file);
    expect(await writeFileAtomic(file, new TextEncoder().encode('{"v":2}'))).toBe(file);
    expect(readFileSync(file, 'utf8')).toBe('{"v":2}');
    expect(readdirSync(join(root, 'a', 'b'))).toEqual(['state.json']);
  });

  it('fsyncs the temporary file before renaming it over the target', async () => {
    const fsp = await import('node:fs/promises');
    const order: string[] = [];
    const file = join(root, 'synced.txt');
    // The temp file's handle is synced: observe it through FileHandle.prototype.sync.
    const handle = await fsp.open(join(root, 'probe'), 'w');
    const proto = Object.getPrototypeOf(handle) as { sync: () => Promise<void> };
    await handle.close();
    const realSync = proto.sync;
    const spySync = vi.spyOn(proto, 'sync').mockImplementation(async function (this: unknown) {
      // At sync time the target must not exist yet: the rename comes after.
      order.push(existsSync(file) ? 'sync after rename' : 'sync');
      return realSync.call(this);
    });
    await writeAtomically(file, async (tmp) => {
      order.push('write');
      writeFileSync(tmp, 'durable');
    });
    order.push(existsSync(file) ? 'renamed' : 'missing');
    expect(order).toEqual(['write', 'sync', 'renamed']);
    expect(spySync).toHaveBeenCalledTimes(1);
    expect(readFileSync(file, 'utf8')).toBe('durable');
    spySync.mockRestore();
  });

  it('a failed write leaves the old content and no temporary file', async () => {
    const file = join(root, 'keep.txt');
    await writeFileAtomic(file, 'old');
    await expect(
      writeAtomically(file, async (tmp) => {
        writeFileSync(tmp, 'half');
        throw new Error('disk full');
      }),
    ).rejects.toThrow('disk full');
    expect(readFileSync(file, 'utf8')).toBe('old');
    expect(readdirSync(root).filter((f) => f.startsWith('keep'))).toEqual(['keep.txt']);
  });
});
