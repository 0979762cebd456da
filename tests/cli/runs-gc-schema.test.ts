import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { GC_SPEC } from '../../src/cli/specs/gc.ts';
import { RUNS_SPEC } from '../../src/cli/specs/runs.ts';
import { SCHEMA_SPEC } from '../../src/cli/specs/schema.ts';
import { taskOperatorRegistry } from '../../src/operators/registries.ts';
import { connect } from '../../src/store/connection.ts';
import { RejectedStore } from '../../src/store/rejected-store.ts';
import { type RunRecord, RunTable } from '../../src/store/run-table.ts';
import { winnow, winnowInProcess } from '../helpers/cli.ts';
import { tempDir } from '../helpers/tmp.ts';

const dir = tempDir('winnow-runs-gc-');
const T0 = Date.parse('2025-03-01T10:00:00.000Z');

/** A pid that is certainly not alive: a child that has already exited. */
const deadPid = spawnSync(process.execPath, ['-e', '0']).pid!;

function record(
  p: Partial<Omit<RunRecord, 'summary'>> & { runId: string; summary: Record<string, unknown> },
): RunRecord {
  return {
    kind: 'rft',
    name: 'bots',
    configHash: `${p.runId.replace(/[^a-z0-9]/g, '')}abcdef0123456789`,
    seed: 1,
    status: 'completed',
    startedAt: T0,
    finishedAt: T0 + 83_000,
    tableVersion: 0,
    ...p,
    summary: JSON.stringify(p.summary),
  };
}

/** A database holding five runs (with buffer tables, rejected rows, selector states and folders). */
async function setupDb(db: string): Promise<void> {
  const runsDir = join(dir, 'runs');
  const rft = (id: string) => ({
    runDir: join(runsDir, id),
    bufferTable: `${id}_experiences`,
    host: hostname(),
  });
  const records = [
    record({
      runId: 'bots-1',
      summary: { ...rft('bots-1'), pid: deadPid, steps: 10, initialAccuracy: 0.25, finalAccuracy: 0.5 },
    }),
    record({
      runId: 'bots-2',
      status: 'failed',
      startedAt: T0 + 1000,
      finishedAt: T0 + 3000,
      summary: { ...rft('bots-2'), pid: deadPid, error: 'boom' },
    }),
    record({
      runId: 'bots-3',
      status: 'running',
      startedAt: T0 + 2000,
      finishedAt: 0,
      summary: { ...rft('bots-3'), pid: deadPid },
    }),
    record({
      runId: 'bots-4',
      status: 'running',
      startedAt: T0 + 3000,
      finishedAt: 0,
      summary: { ...rft('bots-4'), pid: process.pid },
    }),
    record({
      runId: 'gsm8k-1',
      kind: 'tasks',
      name: 'gsm8k',
      startedAt: T0 + 4000,
      finishedAt: T0 + 4500,
      summary: { rowsRead: 41, rejected: 1, tasksOut: 40 },
    }),
  ];
  const runs = await RunTable.open(db);
  for (const r of records) await runs.put(r);
  const conn = await connect(db);
  for (const id of ['bots-1', 'bots-2', 'bots-3', 'bots-4']) {
    await conn.createTable(
      `${id}_experiences`,
      [1, 2, 3].map((k) => ({ id: `${id}-${k}`, reward: k })),
    );
    mkdirSync(join(runsDir, id), { recursive: true });
    writeFileSync(join(runsDir, id, 'metrics.jsonl'), '{}\n');
  }
  await conn.createTable('bots-1_experiences_uses', [{ id: 'bots-1-1', uses: 1 }]);
  await conn.createTable('selector_states', [
    { run_id: 'bots-1', state: '{}' },
    { run_id: 'bots-2', state: '{}' },
  ]);
  const rejected = await RejectedStore.open(db);
  rejected.add([
    { step: 'grpo', reason: 'nan reward', runId: 'bots-1' },
    { step: 'grpo', reason: 'nan reward', runId: 'bots-1' },
    { step: 'exact_dedup', reason: 'duplicate', runId: 'gsm8k-1' },
  ]);
  await rejected.flush();
}

const db = join(dir, 'db');
beforeAll(() => setupDb(db), 60_000);

interface RunJson {
  runId: string;
  kind: string;
  status: string;
  recordedStatus?: string;
  statusNote?: string;
  configHash: string;
  startedAt: string;
  durationMs: number | null;
  steps: number | null;
  initialAccuracy: number | null;
  finalAccuracy: number | null;
  tasksLanded: number | null;
  runDir: string | null;
  error: string | null;
}
// In-process (no Node start-up per call); a few real processes below show exit codes and stderr.
const cli = (args: string[]) => winnowInProcess(args);
const listRuns = async (...args: string[]) => {
  const r = await cli(['runs', '--db', db, '--json', ...args]);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as RunJson[];
};

describe('winnow runs', async () => {
  it('lists every run, oldest first, with status, hash, time, steps and headline metrics', async () => {
    const r = await cli(['runs', '--db', db]);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(7); // header, rule, five runs
    expect(lines[0]).toMatch(
      /^run\s+kind\s+name\s+status\s+config\s+started\s+duration\s+steps\s+headline\s+folder$/,
    );
    expect(lines.slice(2).map((l) => l.split(/\s+/)[0])).toEqual([
      'bots-1',
      'bots-2',
      'bots-3',
      'bots-4',
      'gsm8k-1',
    ]);
    expect(lines[2]).toContain('completed');
    expect(lines[2]).toContain('bots1abc'); // first 8 of the config hash
    expect(lines[2]).toContain('2025-03-01T10:00:00Z');
    expect(lines[2]).toContain('1m23s');
    expect(lines[2]).toContain('accuracy 0.250 → 0.500');
    expect(lines[2]).toContain(join(dir, 'runs', 'bots-1'));
    expect(lines[3]).toContain('error: boom');
    expect(lines[4]).toContain('interrupted (process gone)');
    expect(lines[5]).toMatch(/bots-4\s+rft\s+bots\s+running\s/);
    expect(lines[6]).toMatch(
      /gsm8k-1\s+tasks\s+gsm8k\s+completed\s+gsm8k1ab\s+2025-03-01T10:00:04Z\s+500ms\s+40 tasks landed/,
    );
  });

  it('--json prints an array with the effective and the recorded status', async () => {
    const runs = await listRuns();
    expect(runs.map((r) => [r.runId, r.status])).toEqual([
      ['bots-1', 'completed'],
      ['bots-2', 'failed'],
      ['bots-3', 'interrupted'],
      ['bots-4', 'running'],
      ['gsm8k-1', 'completed'],
    ]);
    expect(runs[0]).toMatchObject({
      kind: 'rft',
      configHash: 'bots1abcdef0123456789',
      startedAt: '2025-03-01T10:00:00.000Z',
      durationMs: 83_000,
      steps: 10,
      initialAccuracy: 0.25,
      finalAccuracy: 0.5,
      tasksLanded: null,
      runDir: join(dir, 'runs', 'bots-1'),
    });
    expect(runs[1]!.error).toBe('boom');
    expect(runs[2]).toMatchObject({
      recordedStatus: 'running',
      statusNote: 'process gone',
      durationMs: null,
    });
    expect(runs[3]!.recordedStatus).toBeUndefined();
    expect(runs[4]).toMatchObject({ kind: 'tasks', tasksLanded: 40, steps: null, durationMs: 500 });
  });

  it('--name keeps one pipeline’s runs', async () => {
    expect((await listRuns('--name', 'gsm8k')).map((r) => r.runId)).toEqual(['gsm8k-1']);
    expect(await listRuns('--name', 'nope')).toEqual([]);
  });

  it('creates nothing: a missing folder is a one-line error (exit 2), an empty folder lists no runs', async () => {
    const missing = join(dir, 'no-such-db');
    // A real process: the exit code and the one line a user sees on stderr.
    const r = winnow(['runs', '--db', missing]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain(missing);
    expect(existsSync(missing)).toBe(false);

    const empty = join(dir, 'empty-db');
    mkdirSync(empty);
    const e = await cli(['runs', '--db', empty]);
    expect(e.code).toBe(0);
    expect(e.stdout.trim()).toBe(`no runs in ${empty}`);
    expect(readdirSync(empty)).toEqual([]);
  });
});

describe('winnow gc', async () => {
  const tables = async () => (await (await connect(db)).tableNames()).sort();
  const rejectedRuns = async () => (await (await RejectedStore.open(db)).read()).map((r) => r.runId).sort();

  it('without --yes only says what it would delete', async () => {
    const before = await tables();
    const r = await cli(['gc', 'bots-1', '--db', db]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split('\n')).toEqual([
      `would remove bots-1 [rft, completed]: table 'bots-1_experiences' (3 rows), table 'bots-1_experiences_uses' (1 rows), 2 rejected row(s), folder ${join(dir, 'runs', 'bots-1')}`,
      'dry run: nothing deleted; add --yes to delete 1 run(s)',
      '',
    ]);
    expect(await tables()).toEqual(before);
    expect(existsSync(join(dir, 'runs', 'bots-1'))).toBe(true);
    expect(await listRuns()).toHaveLength(5);
    const dry = await cli(['gc', 'bots-1', '--db', db, '--dry-run', '--yes']);
    expect(dry.stdout).toContain('dry run: nothing deleted');
    expect(await listRuns()).toHaveLength(5);
  });

  it('checks every name first: one unknown id deletes nothing and suggests the nearest', async () => {
    const r = await cli(['gc', 'bots-2', 'bots-l', '--db', db, '--yes']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("no run 'bots-l'");
    expect(r.stderr).toContain("did you mean 'bots-1'");
    expect(r.stderr).toContain('nothing was deleted');
    expect((await listRuns()).map((x) => x.runId)).toContain('bots-2');
  });

  it('refuses a run whose process is alive, and asks for names', async () => {
    const r = await cli(['gc', 'bots-4', '--db', db, '--yes']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("run 'bots-4' is still running");
    expect((await cli(['gc', '--db', db])).code).toBe(2);
    expect(await listRuns()).toHaveLength(5);
  });

  it('--failed selects the failed and interrupted runs, listing each; --yes deletes exactly those', async () => {
    const dry = await cli(['gc', '--failed', '--db', db]);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain('would remove bots-2 [rft, failed]');
    expect(dry.stdout).toContain('would remove bots-3 [rft, interrupted (process gone)]');
    expect(dry.stdout).toContain('delete 2 run(s)');
    const r = await cli(['gc', '--failed', '--db', db, '--yes']);
    expect(r.code, r.stderr).toBe(0);
    expect(
      r.stdout
        .trim()
        .split('\n')
        .map((l) => l.split(':')[0]),
    ).toEqual(['removed bots-2 [rft, failed]', 'removed bots-3 [rft, interrupted (process gone)]']);
    expect((await listRuns()).map((x) => x.runId)).toEqual(['bots-1', 'bots-4', 'gsm8k-1']);
    expect(await tables()).not.toContain('bots-2_experiences');
    expect(await tables()).not.toContain('bots-3_experiences');
    expect(existsSync(join(dir, 'runs', 'bots-2'))).toBe(false);
    expect(existsSync(join(dir, 'runs', 'bots-3'))).toBe(false);
  });

  it('RUN --yes deletes that run’s tables, rejected rows, selector state, folder and record only', async () => {
    const r = await cli(['gc', 'bots-1', '--db', db, '--yes']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe(
      `removed bots-1 [rft, completed]: table 'bots-1_experiences' (3 rows), table 'bots-1_experiences_uses' (1 rows), 2 rejected row(s), folder ${join(dir, 'runs', 'bots-1')}`,
    );
    expect(await tables()).toEqual(['bots-4_experiences', 'rejected', 'runs', 'selector_states']);
    expect(await rejectedRuns()).toEqual(['gsm8k-1']);
    const states = await (await (await connect(db)).openTable('selector_states')).query().toArray();
    expect(states.map((s) => s.run_id)).toEqual([]);
    expect(existsSync(join(dir, 'runs', 'bots-1'))).toBe(false);
    expect(existsSync(join(dir, 'runs', 'bots-4'))).toBe(true);
    expect((await listRuns()).map((x) => x.runId)).toEqual(['bots-4', 'gsm8k-1']);
  });
});

describe('winnow schema', async () => {
  it('task (the default) types each operator in operators.items', async () => {
    const r = await cli(['schema']);
    expect(r.code, r.stderr).toBe(0);
    const schema = JSON.parse(r.stdout) as {
      $schema: string;
      title: string;
      properties: Record<string, { items?: { anyOf: Array<{ properties?: { op?: { const?: string } } }> } }>;
    };
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(schema.title).toBe('Winnow task pipeline');
    expect(Object.keys(schema.properties)).toEqual([
      'name',
      'kind',
      'description',
      'seed',
      'db',
      'runsDir',
      'workers',
      'engine',
      'input',
      'mapping',
      'operators',
      'output',
    ]);
    const ops = schema.properties.operators!.items!.anyOf.map((s) => s.properties?.op?.const).filter(Boolean);
    expect(ops).toEqual(
      taskOperatorRegistry()
        .all()
        .map((d) => d.name),
    );
    expect((await cli(['schema', 'task'])).stdout).toBe(r.stdout);
  });

  it('rft is the RFT config, written with --out; an unknown kind is exit 2 with a suggestion', async () => {
    const r = await cli(['schema', 'rft']);
    expect(r.code, r.stderr).toBe(0);
    const schema = JSON.parse(r.stdout) as {
      title: string;
      required: string[];
      properties: Record<string, unknown>;
    };
    expect(schema.title).toBe('Winnow RFT run');
    expect(schema.required).toEqual(['name', 'kind', 'tasks', 'explorer']);
    expect(Object.keys(schema.properties)).toContain('experienceOps');
    const out = join(dir, 'rft.schema.json');
    expect((await cli(['schema', 'rft', '--out', out])).code).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe(r.stdout);
    const bad = winnow(['schema', 'rtf']); // a real process: exit 2 and the one stderr line
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim()).toBe("error: unknown schema kind 'rtf'; did you mean 'rft'?");
  });
});

describe('--help', async () => {
  it('every new command prints each of its options and an example, exit 0', async () => {
    for (const spec of [RUNS_SPEC, GC_SPEC, SCHEMA_SPEC]) {
      const r = await cli([spec.name, '--help']);
      expect(r.code, spec.name).toBe(0);
      for (const name of Object.keys(spec.options))
        expect(r.stdout, `${spec.name} --${name}`).toContain(`--${name}`);
      expect(r.stdout).toContain(spec.examples[0]);
    }
  });

  it('the older commands answer --help too, and the global usage names every command and run’s flags', async () => {
    for (const c of ['run', 'inspect', 'export', 'bench']) {
      const r = await cli([c, '--help']);
      expect(r.code, c).toBe(0);
      expect(r.stdout).toContain(`winnow ${c}`);
      expect(r.stdout).toMatch(/^examples?:$/m);
    }
    const g = winnow(['--help']); // a real process, as a user types it
    expect(g.code).toBe(0);
    for (const s of ['run', 'inspect', 'export', 'schema', 'runs', 'gc', 'bench'])
      expect(g.stdout).toContain(`winnow ${s} `);
    for (const f of ['--resume', '--steps', '--run ', '--overwrite', '--runs-dir', '--run-dir', '--quiet'])
      expect(g.stdout).toContain(f);
  });
});
