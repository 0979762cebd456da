import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as arrow from 'apache-arrow';
import { beforeAll, describe, expect, it } from 'vitest';
import { closeAllConnections, connect } from '../../src/store/connection.ts';
import { RunTable } from '../../src/store/run-table.ts';
import { winnow } from '../helpers/cli.ts';
import { tempDir } from '../helpers/tmp.ts';
import { shippedPipeline, treeHashes, writeYaml } from './rft-files.ts';

const rows = async (db: string, table: string) => {
  closeAllConnections();
  return (await (await connect(db)).openTable(table)).countRows();
};

describe('a mistake destroys nothing (the replay transcript)', () => {
  const dir = tempDir('winnow-vta-');
  const db = join(dir, 'db');
  const runs = join(dir, 'runs');
  const base = shippedPipeline('arithmetic-replay.yaml');
  const lifecycle = { ...(base.lifecycle as object), steps: 3, checkpointEvery: 3 };
  const good = writeYaml(join(dir, 'replay.yaml'), { ...base, lifecycle });
  let before: Record<string, string>;
  let stored = 0;

  beforeAll(async () => {
    const r = winnow(['run', good, '--db', db, '--runs-dir', runs, '--quiet']);
    expect(r.code, r.stderr).toBe(0);
    stored = await rows(db, 'arithmetic-replay-1_experiences');
    before = treeHashes(dir);
  }, 240_000);

  it('the first run lands its experiences and its step-3 checkpoint', () => {
    expect(stored).toBeGreaterThan(0);
    expect(existsSync(join(runs, 'arithmetic-replay-1', 'checkpoints', 'step-000003'))).toBe(true);
  });

  const typos: Array<[string, (c: Record<string, unknown>) => void, RegExp]> = [
    [
      'decay: -3',
      (c) => {
        (c.buffer as { sampler: { params: { decay: number } } }).sampler.params.decay = -3;
      },
      /replay\.yaml: buffer\.sampler\.params\.decay: Too small: expected number to be >=0/,
    ],
    [
      'op: grpoo',
      (c) => {
        (c.experienceOps as Array<{ op: string }>)[2]!.op = 'grpoo';
      },
      /experienceOps\[2\]\.op: unknown operator 'grpoo' \(did you mean 'grpo'/,
    ],
  ];
  for (const [what, mutate, message] of typos) {
    it(`a typo (${what}) exits 2 naming the key, and the database and run folder are byte-identical`, async () => {
      const c = structuredClone({ ...base, lifecycle });
      mutate(c);
      const bad = writeYaml(join(dir, 'replay.yaml'), c);
      const r = winnow(['run', bad, '--db', db, '--runs-dir', runs]);
      writeYaml(join(dir, 'replay.yaml'), { ...base, lifecycle }); // restore the file itself
      expect(r.code).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(message);
      expect(treeHashes(dir)).toEqual(before);
      expect(await rows(db, 'arithmetic-replay-1_experiences')).toBe(stored);
      const record = (await RunTable.readAll(db)).find((x) => x.runId === 'arithmetic-replay-1');
      expect(record?.status).toBe('completed');
    });
  }

  it('running the same config again starts run -2 beside run -1, which stays whole', async () => {
    const r = winnow(['run', good, '--db', db, '--runs-dir', runs, '--quiet', '--steps', '1']);
    expect(r.code, r.stderr).toBe(0);
    expect(await rows(db, 'arithmetic-replay-1_experiences')).toBe(stored);
    expect(await rows(db, 'arithmetic-replay-2_experiences')).toBeGreaterThan(0);
    expect(existsSync(join(runs, 'arithmetic-replay-1', 'checkpoints', 'step-000003'))).toBe(true);
  });
});

describe('runs kept apart (BOTS beside its shared_ability copy)', () => {
  const dir = tempDir('winnow-apart-');
  const db = join(dir, 'db');
  const runs = join(dir, 'runs');
  const base = shippedPipeline('arithmetic-bots.yaml');
  const lifecycle = { ...(base.lifecycle as object), steps: 2, checkpointEvery: 2 };
  const bots = writeYaml(join(dir, 'bots.yaml'), { ...base, lifecycle });
  const shared = writeYaml(join(dir, 'shared.yaml'), {
    ...base,
    lifecycle,
    selector: { type: 'shared_ability' },
  });

  it('both runs keep their experiences, reports and checkpoints', async () => {
    expect(winnow(['run', bots, '--db', db, '--runs-dir', runs, '--quiet']).code).toBe(0);
    const first = await rows(db, 'arithmetic-bots-1_experiences');
    const r = winnow(['run', shared, '--db', db, '--runs-dir', runs, '--quiet']);
    expect(r.code, r.stderr).toBe(0);
    expect(await rows(db, 'arithmetic-bots-1_experiences')).toBe(first);
    expect(await rows(db, 'arithmetic-bots-2_experiences')).toBeGreaterThan(0);
    const report = (id: string) => readFileSync(join(runs, id, 'report.html'), 'utf8');
    expect(report('arithmetic-bots-1')).toContain('<th>selector</th><td>bots</td>');
    expect(report('arithmetic-bots-2')).toContain('<th>selector</th><td>shared_ability</td>');
    for (const id of ['arithmetic-bots-1', 'arithmetic-bots-2'])
      expect(existsSync(join(runs, id, 'checkpoints', 'step-000002'))).toBe(true);
    const records = (await RunTable.readAll(db)).map((x) => [x.runId, x.status]);
    expect(records).toEqual([
      ['arithmetic-bots-1', 'completed'],
      ['arithmetic-bots-2', 'completed'],
    ]);
  }, 240_000);

  it('--resume refuses a config that changes results and names the keys; harmless changes are named and allowed', () => {
    const before = treeHashes(dir);
    // The latest run of this name is the shared_ability one: resuming it with the BOTS config is refused.
    const refused = winnow(['run', bots, '--db', db, '--runs-dir', runs, '--resume']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/differs from run 'arithmetic-bots-2' in selector\.type/);
    expect(treeHashes(dir)).toEqual(before);
    // Naming the BOTS run and only raising the step count is allowed.
    const longer = writeYaml(join(dir, 'bots-longer.yaml'), {
      ...base,
      lifecycle: { ...lifecycle, steps: 3 },
    });
    const ok = winnow([
      'run',
      longer,
      '--db',
      db,
      '--runs-dir',
      runs,
      '--resume',
      '--run',
      'arithmetic-bots-1',
    ]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stderr).toMatch(/resuming with changed lifecycle\.steps \(results unaffected\)/);
    expect(ok.stdout).toMatch(/resumed from step 2/);
  }, 240_000);

  it('--overwrite RUN replaces only the run it names', async () => {
    const keep = await rows(db, 'arithmetic-bots-2_experiences');
    const r = winnow(['run', bots, '--db', db, '--runs-dir', runs, '--overwrite', 'arithmetic-bots-1']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      /removed run 'arithmetic-bots-1': table 'arithmetic-bots-1_experiences' \(\d+ rows\)/,
    );
    expect(await rows(db, 'arithmetic-bots-2_experiences')).toBe(keep);
    const missing = winnow(['run', bots, '--db', db, '--runs-dir', runs, '--overwrite', 'arithmetic-bots-9']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(
      /--overwrite: no run 'arithmetic-bots-9'.*runs there: arithmetic-bots-\d, arithmetic-bots-\d\)/,
    );
  }, 240_000);
});

describe('a workflow, a trainer and a reward from user modules', () => {
  const dir = tempDir('winnow-modules-');
  it('run end to end when named in YAML', async () => {
    const plugins = join(import.meta.dirname, 'fixtures', 'user-plugins');
    const base = shippedPipeline('arithmetic-grpo.yaml');
    const explorer = base.explorer as Record<string, unknown>;
    const file = writeYaml(join(dir, 'modules.yaml'), {
      ...base,
      explorer: {
        ...explorer,
        batchTasks: 8,
        workflow: {
          module: join(plugins, 'tagged-workflow.ts'),
          export: 'taggedWorkflow',
          params: { tag: 'mine' },
        },
        reward: { module: join(plugins, 'digits-reward.ts'), export: 'digitsReward' },
      },
      trainer: {
        module: join(plugins, 'logging-trainer.ts'),
        export: 'loggingTrainer',
        params: { label: 'L' },
      },
      lifecycle: { ...(base.lifecycle as object), steps: 3, checkpointEvery: 3 },
      heldout: undefined,
    });
    const db = join(dir, 'db');
    const runs = join(dir, 'runs');
    const r = winnow(['run', file, '--db', db, '--runs-dir', runs, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as { runId: string; steps: number; describe: Record<string, string> };
    expect(report.steps).toBe(3);
    expect(report.describe.workflow).toMatch(/^module:.*tagged-workflow\.ts#taggedWorkflow$/);
    expect(report.describe.trainer).toMatch(/^module:.*logging-trainer\.ts#loggingTrainer$/);
    // The trainer saw one batch per step, versions 1..3.
    const log = readFileSync(join(runs, report.runId, 'trainer-log.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { label: string; version: number; rows: number });
    expect(log.map((l) => [l.label, l.version])).toEqual([
      ['L', 1],
      ['L', 2],
      ['L', 3],
    ]);
    // Every stored experience went through the user workflow and the user reward.
    closeAllConnections();
    const t = await (await connect(db)).openTable(`${report.runId}_experiences`);
    const stored = (await t.query().select(['info', 'reward']).toArray()) as Array<{
      info: string;
      reward: number;
    }>;
    expect(stored.length).toBeGreaterThan(0);
    for (const e of stored) {
      expect(JSON.parse(e.info)).toMatchObject({ tag: 'mine', judged: 'digits' });
      expect([0, 1]).toContain(e.reward);
    }
  }, 240_000);
});

describe('a seed the runs table cannot record exactly', () => {
  it('is refused before anything is written, in one line, by a runs table that kept int32 seeds', async () => {
    const dir = tempDir('winnow-seed-');
    const db = join(dir, 'db');
    const pipeline = writeYaml(join(dir, 'tasks.yaml'), shippedPipeline('gsm8k-tasks.yaml'));
    // A runs table as an older Winnow made it: seed int32.
    const fields = (await RunTable.open(join(dir, 'probe'))).table.schema();
    const schema = (await fields).fields.map((f) =>
      f.name === 'seed' ? new arrow.Field('seed', new arrow.Int32(), f.nullable) : f,
    );
    await (await connect(db)).createEmptyTable('runs', new arrow.Schema(schema));
    closeAllConnections();
    const before = treeHashes(db);
    const r = winnow(['run', pipeline, '--db', db, '--seed', String(2 ** 31)]);
    expect([r.code, r.stderr.trim().split('\n').length]).toEqual([1, 1]);
    expect(r.stderr).toContain(
      "table 'runs' stores seeds as 32-bit integers (made by an older Winnow): seed 2147483648 would be recorded wrapped",
    );
    expect(treeHashes(db)).toEqual(before);
    // A seed within int32 runs and is recorded as given.
    const ok = winnow(['run', pipeline, '--db', db, '--seed', String(2 ** 31 - 1), '--quiet']);
    expect(ok.code, ok.stderr).toBe(0);
    expect((await RunTable.readAll(db)).map((x) => x.seed)).toEqual([2 ** 31 - 1]);
  }, 120_000);
});
