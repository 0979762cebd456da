import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as lancedb from '@lancedb/lancedb';
import { describe, expect, it } from 'vitest';
import { ExperienceBuffer } from '../../src/buffer/experience-buffer.ts';
import { Rng } from '../../src/core/rng.ts';
import { tempDir } from '../helpers/tmp.ts';
import { CRASH_BUFFER } from './experience-fixtures/crash-child.ts';

const child = fileURLToPath(new URL('./experience-fixtures/crash-child.ts', import.meta.url));
const root = tempDir('winnow-crash-');
const STEPS = 36;

function lines(file: string): string[] {
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
}

/**
 * Run the child. With `kill`, SIGKILL it (after `delayMs`) once `count` new log lines starting with
 * `tag` appeared: `D` kills mid-step, `C` kills between a durable checkpoint and its ack.
 */
function run(
  args: string[],
  logFile: string,
  kill?: { tag: 'D' | 'C'; count: number; delayMs: number },
): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const count = () => lines(logFile).filter((l) => l.startsWith(`${kill?.tag} `)).length;
    const before = count();
    const p = spawn(process.execPath, [child, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    p.stderr.on('data', (d) => {
      stderr += String(d);
    });
    let timer: NodeJS.Timeout | undefined;
    if (kill) {
      timer = setInterval(() => {
        if (count() - before >= kill.count) {
          clearInterval(timer);
          setTimeout(() => p.kill('SIGKILL'), kill.delayMs);
        }
      }, 5);
    }
    p.on('error', reject);
    p.on('exit', (code, signal) => {
      if (timer) clearInterval(timer);
      if (signal === 'SIGKILL') resolve(null);
      else if (code === 0) resolve(0);
      else reject(new Error(`child exited with ${code}: ${stderr}`));
    });
  });
}

describe('ExperienceBuffer under kill -9', () => {
  it('a SIGKILLed replay run resumed from its checkpoint loses no acknowledged write and counts every checkpointed delivery exactly once', async () => {
    const db = join(root, 'db');
    const logFile = join(root, 'run.log');
    const ckpt = join(root, 'ckpt.json');
    const args = [db, logFile, ckpt, String(STEPS)];
    const rng = new Rng(2024);
    let kills = 0;
    for (let round = 0; round < 6; round++) {
      if (lines(logFile).includes('DONE')) break;
      const kill =
        round % 2 === 0
          ? { tag: 'D' as const, count: 1 + rng.int(6), delayMs: rng.int(40) }
          : { tag: 'C' as const, count: 1, delayMs: rng.int(5) };
      if ((await run(args, logFile, kill)) === null) kills++;
    }
    expect(await run(args, logFile)).toBe(0);
    expect(kills).toBeGreaterThanOrEqual(3);

    // Replay the log: deliveries count once the checkpoint that covers them is known to exist.
    const log = lines(logFile);
    const writes = new Set<number>();
    const counted = new Map<string, number>();
    let pending: Array<[number, string]> = [];
    const settle = (through: number) => {
      for (const [s, id] of pending) if (s <= through) counted.set(id, (counted.get(id) ?? 0) + 1);
      pending = pending.filter(([s]) => s > through);
    };
    for (const l of log) {
      const [tag, a, b] = l.split(' ');
      if (tag === 'W') writes.add(Number(a));
      else if (tag === 'D')
        for (const id of (b ?? '').split(',').filter(Boolean)) pending.push([Number(a), id]);
      else if (tag === 'C') settle(Number(a));
      else if (tag === 'R') {
        // The resumed run's checkpoint decides: deliveries up to it were trained on, later ones roll back.
        settle(Number(a));
        pending = [];
      }
    }
    expect(log.at(-1)).toBe('DONE');
    expect(pending).toEqual([]);
    expect([...writes].sort((x, y) => x - y)).toEqual(Array.from({ length: STEPS + 1 }, (_, s) => s));

    // Every acknowledged write is in the table exactly once.
    const table = await (await lancedb.connect(db)).openTable('experiences');
    const rows = await table.query().select(['id', 'use_count']).toArray();
    const ids = rows.map((r) => String(r.id));
    expect(new Set(ids).size).toBe(ids.length);
    for (const s of writes) for (let k = 0; k < 8; k++) expect(ids).toContain(`s${s}-${k}`);
    expect(ids.length).toBe((STEPS + 1) * 8);

    // Use counts (folded into the table at close) equal the checkpointed deliveries, and respect maxUses.
    const useCount = new Map(rows.map((r) => [String(r.id), Number(r.use_count)]));
    for (const id of ids) expect([id, useCount.get(id)]).toEqual([id, counted.get(id) ?? 0]);
    for (const n of counted.values()) expect(n).toBeLessThanOrEqual(2);

    // A fresh process agrees, with nothing pending.
    const buf = await ExperienceBuffer.open(db, CRASH_BUFFER);
    expect(buf.stats()).toMatchObject({ rows: ids.length, pendingLeases: 0, lastAcknowledgedStep: STEPS });
    for (const b of buf.bookkeeping()) expect(b.useCount).toBe(counted.get(b.id) ?? 0);
  }, 120_000);
});
