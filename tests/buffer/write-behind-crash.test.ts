import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ExperienceBuffer } from '../../src/buffer/experience-buffer.ts';
import { Rng } from '../../src/core/rng.ts';
import { closeAllConnections } from '../../src/store/connection.ts';
import { tempDir } from '../helpers/tmp.ts';
import { WRITE_BEHIND_ROWS, WRITE_BEHIND_TABLE } from './experience-fixtures/write-behind-child.ts';

const child = fileURLToPath(new URL('./experience-fixtures/write-behind-child.ts', import.meta.url));
const root = tempDir('winnow-write-behind-crash-');
const CALLS = 200;

function lines(file: string): string[] {
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
}

/** Run the child; SIGKILL it `delayMs` after it logged `queued` Q lines. Resolves true if killed. */
function runKilled(db: string, logFile: string, queued: number, delayMs: number): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [child, db, logFile, String(CALLS)], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    p.stderr.on('data', (d) => {
      stderr += String(d);
    });
    const timer = setInterval(() => {
      if (lines(logFile).filter((l) => l.startsWith('Q ')).length >= queued) {
        clearInterval(timer);
        setTimeout(() => p.kill('SIGKILL'), delayMs);
      }
    }, 2);
    p.on('error', reject);
    p.on('exit', (code, signal) => {
      clearInterval(timer);
      if (signal === 'SIGKILL') resolve(true);
      else if (code === 0) resolve(false);
      else reject(new Error(`child exited with ${code}: ${stderr}`));
    });
  });
}

describe('ExperienceBuffer.writeBehind under kill -9', () => {
  it('after a kill the table holds whole calls, a prefix in call order, including every call whose commit or a later durable() had returned', async () => {
    const rng = new Rng(15);
    let killed = 0;
    for (let round = 0; round < 4; round++) {
      const db = join(root, `db-${round}`);
      const logFile = join(root, `run-${round}.log`);
      if (await runKilled(db, logFile, 5 + rng.int(40), rng.int(15))) killed++;
      const log = lines(logFile);
      const committed = log.filter((l) => l.startsWith('C ')).map((l) => Number(l.slice(2)));
      const durable = log.filter((l) => l.startsWith('D ')).map((l) => Number(l.slice(2)));
      const mustHave = Math.max(-1, ...committed, ...durable) + 1;
      closeAllConnections();
      const buf = await ExperienceBuffer.open(db, { table: WRITE_BEHIND_TABLE, sampler: { type: 'fifo' } });
      const ids = buf.bookkeeping().map((r) => r.id);
      const calls = ids.length / WRITE_BEHIND_ROWS;
      expect(Number.isInteger(calls)).toBe(true);
      const prefix = Array.from({ length: calls }, (_, c) =>
        Array.from({ length: WRITE_BEHIND_ROWS }, (_, k) => `w${c}-${k}`),
      ).flat();
      expect(ids).toEqual(prefix);
      expect(buf.bookkeeping().map((r) => r.seq)).toEqual(prefix.map((_, i) => i));
      expect(calls).toBeGreaterThanOrEqual(mustHave);
      expect(buf.reconciled).toEqual({ reseq: [], quarantined: [] });
      await buf.close();
    }
    expect(killed).toBeGreaterThanOrEqual(3);
  }, 60_000);
});
