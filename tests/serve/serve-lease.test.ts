import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startServe } from '../../src/serve/serve-start.ts';
import { tempDir } from '../helpers/tmp.ts';
import { serveConfig } from './helpers.ts';

/** Every file under `dir` with its size and modification time. */
function snapshot(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => {
      const p = join(e.parentPath, e.name);
      return `${p} ${statSync(p).size} ${statSync(p).mtimeMs}`;
    })
    .sort();
}

describe('winnow serve takes the run lease', () => {
  it('a second serve of a live run is refused naming the first, before it writes; after a stop it resumes', async () => {
    const dir = tempDir('winnow-serve-lease-');
    const file = serveConfig(dir);
    const first = await startServe({ configFile: file, host: '127.0.0.1', port: 0 });
    try {
      const before = snapshot(dir);
      const second = startServe({
        configFile: file,
        host: '127.0.0.1',
        port: 0,
        resume: true,
        runId: first.runId,
      });
      await expect(second).rejects.toThrow(
        new RegExp(
          `^run '${first.runId}' is owned by ${process.pid}@\\S+ \\(winnow serve, run ${first.runId}, since [^)]+\\); nothing was written`,
        ),
      );
      expect(snapshot(dir)).toEqual(before);
    } finally {
      await first.stop('test');
    }
    const again = await startServe({
      configFile: file,
      host: '127.0.0.1',
      port: 0,
      resume: true,
      runId: first.runId,
    });
    expect(again.runId).toBe(first.runId);
    await again.stop('test');
  }, 120_000);
});
