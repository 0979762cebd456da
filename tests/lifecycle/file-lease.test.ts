import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LeaseHeldError } from '../../src/core/lease.ts';
import { FileLease, LEASE_DIR } from '../../src/lifecycle/file-lease.ts';
import { spawnWinnow, tableRows, versionCount } from '../fault/harness.ts';
import { runPipeline } from '../fault/pipeline-cli.ts';
import { writeRftYaml } from '../fault/rft-files.ts';
import { tempDir } from '../helpers/tmp.ts';

/**
 * Issue #16 item 4 without a server: single-process runs on a local database hold a file lease on
 * their run and table under `<db>/.winnow-leases/`. A live holder refuses a second process (exit 2,
 * nothing written); a dead or silent holder's lease is taken over.
 */
const dir = tempDir('winnow-file-lease-');
const HOST = hostname();
const leaseDir = (db: string) => join(db, LEASE_DIR);
const files = (db: string) => readdirSync(leaseDir(db)).sort();
const read = (db: string, f: string) => JSON.parse(readFileSync(join(leaseDir(db), f), 'utf8'));
const subject = (db: string, runId = 'r1', bufferTable = 'buf') => ({ dbDir: db, runId, bufferTable });

/** A pid that was just in use and is not any more (a SIGKILLed holder). */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', '0']);
  return r.pid as number;
}

describe('FileLease', () => {
  it('takes, beats and releases: exact file contents', async () => {
    const db = join(dir, 'unit-1');
    const lease = FileLease.acquire(subject(db), { ttlMs: 60_000, heartbeatMs: 40 })!;
    expect(lease.holder).toBe(`${process.pid}@${HOST}`);
    const names = files(db);
    expect(names).toHaveLength(2);
    expect(names[0]).toMatch(/^run-[0-9a-f]{16}\.1\.json$/);
    expect(names[1]).toMatch(/^table-[0-9a-f]{16}\.1\.json$/);
    const first = read(db, names[0]!);
    expect(Object.keys(first)).toEqual(['holder', 'runId', 'startedAt', 'heartbeatAt']);
    expect(first).toMatchObject({ holder: `${process.pid}@${HOST}`, runId: 'r1' });
    expect(first.heartbeatAt).toBe(first.startedAt);
    expect(read(db, names[1]!)).toEqual(first);
    await new Promise((r) => setTimeout(r, 120));
    const beaten = read(db, names[0]!);
    expect(beaten.startedAt).toBe(first.startedAt);
    expect(Date.parse(beaten.heartbeatAt)).toBeGreaterThan(Date.parse(first.heartbeatAt));
    // A second taker (this process is alive, its heartbeat fresh) is refused, naming the holder.
    const again = () => FileLease.acquire(subject(db), { ttlMs: 60_000 });
    expect(again).toThrow(LeaseHeldError);
    expect(again).toThrow(`run 'r1' is owned by ${process.pid}@${HOST} (run r1, since ${first.startedAt})`);
    lease.releaseSync();
    expect(files(db)).toEqual(names);
    const released = read(db, names[0]!);
    expect(released).toEqual({ ...released, released: true, holder: first.holder, runId: 'r1' });
    // Released: the next taker makes generation 2 and removes generation 1.
    const next = FileLease.acquire(subject(db), { ttlMs: 60_000 })!;
    expect(files(db)).toEqual(names.map((n) => n.replace('.1.json', '.2.json')));
    next.releaseSync();
  });

  it('takes over an expired heartbeat and a dead pid; a held table gives the run key back', () => {
    const db = join(dir, 'unit-2');
    mkdirSync(leaseDir(db), { recursive: true });
    const held = FileLease.acquire(subject(db), { ttlMs: 60_000 })!;
    const [runFile, tableFile] = files(db);
    held.releaseSync();
    const old = new Date(Date.now() - 120_000).toISOString();
    // Expired: a live pid (this one) whose heartbeat is older than the TTL.
    const stale = { holder: `${process.pid}@${HOST}`, runId: 'r1', startedAt: old, heartbeatAt: old };
    writeFileSync(join(leaseDir(db), runFile!), JSON.stringify(stale));
    writeFileSync(join(leaseDir(db), tableFile!), JSON.stringify(stale));
    const a = FileLease.acquire(subject(db), { ttlMs: 60_000 })!;
    expect(files(db)).toEqual([runFile, tableFile].map((n) => n!.replace('.1.json', '.2.json')));
    a.releaseSync();
    // Dead: a fresh heartbeat, but its pid is gone on this host.
    const now = new Date().toISOString();
    const dead = { holder: `${deadPid()}@${HOST}`, runId: 'r0', startedAt: now, heartbeatAt: now };
    const tableNow = tableFile!.replace('.1.json', '.2.json');
    writeFileSync(join(leaseDir(db), tableNow), JSON.stringify(dead));
    const b = FileLease.acquire(subject(db), { ttlMs: 60_000 })!;
    b.releaseSync();
    // Live table holder on another run id: refused, and the run key taken first is given back.
    const other = FileLease.acquire(subject(db, 'r2'), { ttlMs: 60_000 })!;
    expect(() => FileLease.acquire(subject(db, 'r1'), { ttlMs: 60_000 })).toThrow(
      `buffer table 'buf' is owned by ${process.pid}@${HOST} (run r2, since`,
    );
    const r1 = files(db).filter((f) => f.startsWith(runFile!.split('.')[0]!));
    expect(r1).toHaveLength(1);
    expect(read(db, r1[0]!).released).toBe(true);
    other.releaseSync();
    // Remote databases take no file lease.
    expect(FileLease.acquire(subject('memory://x'))).toBeUndefined();
  });
});

describe('winnow run under a file lease', () => {
  const { file, db, runDir } = writeRftYaml(dir, 'lease-run', { lifecycle: { mode: 'sync', steps: 2 } });

  it('a live holder refuses --resume (exit 2, nothing written); a dead holder is taken over', async () => {
    const first = await spawnWinnow(['run', file], { timeoutMs: 60_000 });
    expect(first.code).toBe(0);
    const stored = JSON.parse(readFileSync(join(runDir, 'run-config.json'), 'utf8'));
    const runId: string = stored.runId;
    const table: string = stored.bufferTable;
    const before = { versions: versionCount(db, table), rows: (await tableRows(db, table)).length };
    const runsBefore = versionCount(db, 'runs');

    const lease = FileLease.acquire({ dbDir: db, runId, bufferTable: table })!;
    const refused = await spawnWinnow(['run', file, '--resume', '--steps', '3'], { timeoutMs: 60_000 });
    lease.releaseSync();
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      `run '${runId}' is owned by ${process.pid}@${HOST} (run ${runId}, since `,
    );
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    expect(versionCount(db, table)).toBe(before.versions);
    expect((await tableRows(db, table)).length).toBe(before.rows);
    expect(versionCount(db, 'runs')).toBe(runsBefore);

    // A SIGKILLed holder: its lease files name a pid that is gone. --resume takes over and runs.
    const now = new Date().toISOString();
    const dead = JSON.stringify({ holder: `${deadPid()}@${HOST}`, runId, startedAt: now, heartbeatAt: now });
    for (const f of files(db)) writeFileSync(join(leaseDir(db), f), dead);
    const resumed = await spawnWinnow(['run', file, '--resume', '--steps', '3'], { timeoutMs: 60_000 });
    expect(resumed.stderr).toContain('(resume)');
    expect(resumed.code).toBe(0);
    expect(versionCount(db, table)).toBeGreaterThan(before.versions);
    for (const f of files(db)) expect(read(db, f)).toMatchObject({ released: true });
  }, 60_000);

  it('--overwrite of a live run under another id is refused naming its holder; its rows stay', async () => {
    const a = await spawnWinnow(['run', file, '--run', 'ow-a'], { timeoutMs: 60_000 });
    expect(a.code, a.stderr).toBe(0);
    const rows = (await tableRows(db, 'ow-a_experiences')).length;
    expect(rows).toBeGreaterThan(0);
    const lease = FileLease.acquire({
      dbDir: db,
      runId: 'ow-a',
      bufferTable: 'ow-a_experiences',
      mode: 'winnow run',
    })!;
    const refused = await spawnWinnow(['run', file, '--overwrite', 'ow-a', '--run', 'ow-b'], {
      timeoutMs: 60_000,
    });
    lease.releaseSync();
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr.trim()).toMatch(
      new RegExp(
        `^error: run 'ow-a' is owned by ${process.pid}@\\S+ \\(winnow run, run ow-a, since [^)]+\\); nothing was written`,
      ),
    );
    expect((await tableRows(db, 'ow-a_experiences')).length).toBe(rows);
    const replaced = await spawnWinnow(['run', file, '--overwrite', 'ow-a', '--run', 'ow-b'], {
      timeoutMs: 60_000,
    });
    expect(replaced.code, replaced.stderr).toBe(0);
    expect(replaced.stderr).toContain("removed run 'ow-a'");
  }, 120_000);
});

describe('winnow run of a task pipeline under a file lease', () => {
  it('a live holder of the task table refuses it (exit 2, nothing landed); once released it runs', async () => {
    const pdir = join(dir, 'pipeline');
    mkdirSync(pdir, { recursive: true });
    writeFileSync(
      join(pdir, 'ok.csv'),
      'id,question,answer\na,What is 1 + 1?,#### 2\nb,What is 2 + 2?,#### 4\n',
    );
    const db = join(pdir, 'db-p');
    const lease = FileLease.acquire({ dbDir: db, runId: 'other-run', bufferTable: 'tasks' })!;
    const refused = await runPipeline(pdir, 'p', 'ok.csv');
    lease.releaseSync();
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      `task table 'tasks' is owned by ${process.pid}@${HOST} (run other-run, since `,
    );
    expect(refused.tasks).toEqual([]);
    expect(refused.runStatus).toBeUndefined();
    const ok = await runPipeline(pdir, 'p', 'ok.csv');
    expect(ok.code).toBe(0);
    expect(ok.tasks.map((t) => t.id)).toEqual(['a', 'b']);
  }, 30_000);
});
