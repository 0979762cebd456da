import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { WinnowError } from '../../src/core/errors.ts';
import { Hooks } from '../../src/lifecycle/hooks.ts';
import type { RftEvents } from '../../src/lifecycle/run/rft-events.ts';
import { reserveFile } from '../../src/lifecycle/run/rft-failure.ts';
import { runRft } from '../../src/lifecycle/run/rft-run.ts';
import { RunTable } from '../../src/store/run-table.ts';
import { REPO_ROOT } from '../helpers/cli.ts';
import { smallRftConfig } from '../helpers/rft.ts';
import { tempDir } from '../helpers/tmp.ts';
import { spawnWinnow } from './harness.ts';
import { writeRftYaml } from './rft-files.ts';

/**
 * Issue #35 item 8, RFT runs: a run that fails on a write to one of its tables ends with one line
 * naming the database and table, the step reached and `--resume` (never a Rust source path), and
 * its record in `runs` says `failed` with that line — on a full disk too, where writing the record
 * itself needs the room the run set aside.
 */
const dir = tempDir('winnow-rft-failure-');
const RUST_PATH = /\.rs:\d+/;

describe('RFT run: a fatal error ends the run recorded as failed, with one line', () => {
  it('a table that cannot be written: the error and the record name it, and the step reached', async () => {
    const db = join(dir, 'broken-db');
    const config = smallRftConfig('broken', { lifecycle: { mode: 'sync', steps: 3, checkpointEvery: 1 } });
    // After the first checkpoint, selector_states stops being a table (a real engine failure).
    const hooks = new Hooks<RftEvents>().on('onCheckpoint', ({ step }) => {
      if (step !== 1) return;
      const table = join(db, 'selector_states.lance');
      renameSync(table, `${table}.moved`);
      writeFileSync(table, 'not a table');
    });
    const err = await runRft(config, {
      baseDir: REPO_ROOT,
      dbDir: db,
      runDir: join(dir, 'broken-run'),
      hooks,
    }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(WinnowError);
    const line = (err as Error).message;
    expect(line.startsWith(`${db}: table 'selector_states': writing failed: `)).toBe(true);
    expect(line).toContain("run 'broken-1' is recorded as failed after step 2;");
    expect(line).toContain('--resume');
    expect([line.includes('\n'), RUST_PATH.test(line)]).toEqual([false, false]);
    const record = (await RunTable.readAll(db)).find((r) => r.runId === 'broken-1');
    expect(record?.status).toBe('failed');
    expect(JSON.parse(record!.summary)).toMatchObject({ error: line, steps: 2 });
    // The reserve is given back.
    expect(existsSync(reserveFile(db, 'broken-1'))).toBe(false);
  }, 600_000);

  // A full disk needs a small file system: a tmpfs where this process may mount one (root in a
  // container); elsewhere this check cannot be made and is skipped.
  const full = join(dir, 'full');
  const canMount = (() => {
    try {
      mkdirSync(full, { recursive: true });
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=2m', 'tmpfs', full], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  })();
  afterAll(() => {
    if (canMount) execFileSync('umount', [full], { stdio: 'ignore' });
  });

  it.skipIf(!canMount)(
    'a full disk: exit 1, one line naming the table, and the record says failed',
    async () => {
      const { file } = writeRftYaml(dir, 'full', {
        lifecycle: { mode: 'sync', steps: 400, checkpointEvery: 1 },
      });
      const db = join(full, 'db');
      const r = await spawnWinnow(['run', file, '--db', db], { timeoutMs: 540_000 });
      const errors = r.stderr.split('\n').filter((l) => l.startsWith('error'));
      expect([r.code, errors.length]).toEqual([1, 1]);
      const line = errors[0]!.slice('error: '.length);
      expect(line).toMatch(
        new RegExp(
          `^${db}: table '[\\w]+': writing failed: the disk is full \\(no space left on device\\); run 'full-1' is recorded as failed after step \\d+;`,
        ),
      );
      expect(RUST_PATH.test(line)).toBe(false);
      const record = (await RunTable.readAll(db)).find((x) => x.runId === 'full-1');
      expect([record?.status, (JSON.parse(record!.summary) as { error: string }).error]).toEqual([
        'failed',
        line,
      ]);
    },
    600_000,
  );
});
