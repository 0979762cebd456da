import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ExperienceBuffer } from '../../src/buffer/experience-buffer.ts';
import { connect } from '../../src/store/connection.ts';
import { tempDir } from '../helpers/tmp.ts';

/**
 * Issue #6 item 4: processes appending to one experience table while another compacts it. The
 * storage guarantee: every committed row is there exactly once. (The buffer's in-memory index —
 * its sequence numbers — assumes one writing buffer per table; see docs/reliability.md.)
 */
const CHILD = fileURLToPath(new URL('./fixtures/concurrent-child.ts', import.meta.url));
const root = tempDir('winnow-concurrent-');

interface Child {
  code: number | null;
  lines: string[];
  stderr: string;
}

function child(args: string[]): Promise<Child> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [CHILD, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let stderr = '';
    p.stdout.on('data', (d) => {
      out += String(d);
    });
    p.stderr.on('data', (d) => {
      stderr += String(d);
    });
    p.on('error', reject);
    p.on('close', (code) => resolve({ code, lines: out.split('\n').filter(Boolean), stderr }));
  });
}

async function rowsOf(db: string, table: string): Promise<{ id: string; response: string }[]> {
  const t = await (await connect(db)).openTable(table);
  return (await t.query().select(['id', 'response']).toArray()) as { id: string; response: string }[];
}

const COMMITS = 12;
const PER = 50;
const expected = (prefix: string) => Array.from({ length: COMMITS * PER }, (_, i) => `${prefix}-${i}`);

/** Run the writers and a compactor that loops until every writer is done. */
async function race(db: string, table: string, writers: string[][]) {
  const stop = join(db, `stop-${table}`);
  const compactor = child(['compact', db, table, stop]);
  const done = await Promise.all(writers.map((w) => child(w)));
  writeFileSync(stop, '');
  return { writers: done, compactor: await compactor };
}

describe('concurrent writers and a compactor on one experience table', () => {
  it('two processes appending through ExperienceBuffer while a third compacts: no row lost, none duplicated', async () => {
    const db = join(root, 'two-writers');
    // The table exists before the race (a compactor cannot open a table nobody created yet).
    expect((await child(['append', db, 'shared', 'init', '1', '1'])).code).toBe(0);
    const { writers, compactor } = await race(db, 'shared', [
      ['append', db, 'shared', 'a', String(COMMITS), String(PER)],
      ['append', db, 'shared', 'b', String(COMMITS), String(PER)],
    ]);
    for (const w of writers) {
      expect(w.stderr).toBe('');
      expect(w.code).toBe(0);
      expect(w.lines[w.lines.length - 1]).toBe(`DONE ${COMMITS * PER}`);
    }
    expect(compactor.code).toBe(0);
    expect(Number(compactor.lines[compactor.lines.length - 1]!.split(' ')[1])).toBeGreaterThan(0);

    const rows = await rowsOf(db, 'shared');
    const ids = rows.map((r) => r.id);
    expect(rows.length).toBe(1 + 2 * COMMITS * PER);
    expect(new Set(ids).size).toBe(rows.length);
    expect(ids.sort()).toEqual(['init-0', ...expected('a'), ...expected('b')].sort());
    for (const r of rows) expect(r.response).toBe(`response ${r.id}`);
  });

  it('one buffer writing while another process compacts: the buffer reopens and delivers each row once', async () => {
    const db = join(root, 'writer-and-compactor');
    expect((await child(['append', db, 'exps', 'init', '1', '1'])).code).toBe(0);
    const { writers, compactor } = await race(db, 'exps', [
      ['append', db, 'exps', 'a', String(COMMITS), String(PER)],
    ]);
    for (const w of [...writers, compactor]) expect(w.code).toBe(0);
    const rows = await rowsOf(db, 'exps');
    expect(rows.length).toBe(1 + COMMITS * PER);
    expect(new Set(rows.map((r) => r.id)).size).toBe(rows.length);

    // Reopened, the buffer sees every row and (FIFO, one use each) delivers each exactly once.
    const buffer = await ExperienceBuffer.open(db, { table: 'exps', sampler: { type: 'fifo' } });
    expect(buffer.stats().rows).toBe(1 + COMMITS * PER);
    const delivered: string[] = [];
    for (let step = 1; step <= 20; step++) {
      const s = await buffer.sample(100, { step });
      delivered.push(...s.experiences.map((e) => e.id));
      if (s.experiences.length === 0) break;
    }
    await buffer.close();
    expect(delivered.length).toBe(1 + COMMITS * PER);
    expect(new Set(delivered).size).toBe(delivered.length);
  });
});
