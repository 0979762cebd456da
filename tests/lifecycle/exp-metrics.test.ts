import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Hooks } from '../../src/lifecycle/hooks.ts';
import { ExperienceOpsReportSchema } from '../../src/lifecycle/run/operator-report.ts';
import type { RftEvents } from '../../src/lifecycle/run/rft-events.ts';
import { runRft } from '../../src/lifecycle/run/rft-run.ts';
import { tempDir } from '../helpers/tmp.ts';
import { readMetrics, scriptedConfig, scriptedRegistries } from './evaluation-scripted.ts';

const dir = tempDir('winnow-exp-metrics-');

/*
 * Every step rolls out tasks a (2 of 4 right), b (4 of 4) and c (0 of 4): 12 rollouts, rewards 0/1.
 * invalid_reward keeps all 12; reward_std_filter drops the two flat groups (b, c: 8 rows);
 * grpo (no std division, rankPenalty 0.5) sees a's group [1, 1, 0, 0]: advantages ±0.5, and warns
 * that the rank penalty was skipped (the scripted model returns no logprobs).
 */
const PER_STEP = {
  'exp/invalid_reward/dropped_nan': 0,
  'exp/invalid_reward/dropped_pos_inf': 0,
  'exp/invalid_reward/dropped_neg_inf': 0,
  'exp/invalid_reward/dropped_missing': 0,
  'exp/invalid_reward/dropped_not_number': 0,
  'exp/invalid_reward/dropped_groupmates': 0,
  'exp/invalid_reward/rows_in': 12,
  'exp/invalid_reward/rows_out': 12,
  'exp/invalid_reward/dropped': 0,
  'exp/invalid_reward/warnings': 0,
  'exp/reward_std_filter/groups': 3,
  'exp/reward_std_filter/groups_kept': 1,
  'exp/reward_std_filter/groups_dropped_equal': 2,
  'exp/reward_std_filter/groups_dropped_low_std': 0,
  'exp/reward_std_filter/groups_dropped_surplus': 0,
  'exp/reward_std_filter/groups_all_correct': 1,
  'exp/reward_std_filter/groups_all_wrong': 1,
  'exp/reward_std_filter/effective_group_ratio': 1 / 3,
  'exp/reward_std_filter/rows_in': 12,
  'exp/reward_std_filter/rows_out': 4,
  'exp/reward_std_filter/dropped': 8,
  'exp/reward_std_filter/warnings': 0,
  'exp/grpo/rows': 4,
  'exp/grpo/groups': 1,
  'exp/grpo/dropped_invalid_reward': 0,
  'exp/grpo/mean_reward': 0.5,
  'exp/grpo/advantage_mean': 0,
  'exp/grpo/advantage_std': 0.5,
  'exp/grpo/advantage_min': -0.5,
  'exp/grpo/advantage_max': 0.5,
  'exp/grpo/zero_advantage': 0,
  'exp/grpo/singleton_groups': 0,
  'exp/grpo/rank_penalty_skipped_groups': 1,
  'exp/grpo/rows_in': 4,
  'exp/grpo/rows_out': 4,
  'exp/grpo/dropped': 0,
  'exp/grpo/warnings': 1,
  'exp/warnings': ['grpo: grpo: rankPenalty skipped for 1 group(s) with a rollout that has no logprobs'],
};

const expKeys = (rec: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(rec).filter(([k]) => k.startsWith('exp/')));

async function run(name: string, lifecycle: Record<string, unknown>, over: Record<string, unknown> = {}) {
  const config = scriptedConfig(dir, name, { evaluation: undefined, lifecycle, ...over });
  const payloads: Array<RftEvents['afterExperienceOps']['operators']> = [];
  const hooks = new Hooks<RftEvents>().on('afterExperienceOps', (p) => void payloads.push(p.operators));
  const log: string[] = [];
  const runDir = join(dir, `run-${name}`);
  const report = await runRft(config, {
    baseDir: dir,
    dbDir: join(dir, `db-${over.buffer ? 'shared' : name}`),
    runDir,
    registries: scriptedRegistries(),
    hooks,
    log: (l) => log.push(l),
  });
  return { report, lines: readMetrics(runDir), payloads, log, runDir };
}

/** The afterExperienceOps payload of one step, as the hook receives it. */
const PAYLOAD = {
  steps: [
    {
      step: 'invalid_reward',
      op: 'invalid_reward',
      rowsIn: 12,
      rowsOut: 12,
      dropped: 0,
      warnings: 0,
      metrics: {
        dropped_nan: 0,
        dropped_pos_inf: 0,
        dropped_neg_inf: 0,
        dropped_missing: 0,
        dropped_not_number: 0,
        dropped_groupmates: 0,
      },
    },
    expect.objectContaining({ step: 'reward_std_filter', rowsIn: 12, rowsOut: 4, dropped: 8, warnings: 0 }),
    expect.objectContaining({
      step: 'grpo',
      op: 'grpo',
      rowsIn: 4,
      rowsOut: 4,
      dropped: 0,
      warnings: 1,
      metrics: expect.objectContaining({ advantage_std: 0.5, rank_penalty_skipped_groups: 1 }),
    }),
  ],
  warnings: {
    count: 1,
    first: ['grpo: grpo: rankPenalty skipped for 1 group(s) with a rollout that has no logprobs'],
  },
};

describe('experience-operator metrics and warnings reach metrics.jsonl, the report, the hooks and the log', () => {
  for (const mode of ['sync', 'async', 'explore'] as const) {
    it(`${mode}: every step's record carries each operator's exact numbers and warnings`, async () => {
      const r = await run(mode, { mode, steps: 3, checkpointEvery: 3 });
      expect(r.lines.map((l) => l.step)).toEqual([1, 2, 3]);
      for (const line of r.lines) expect(expKeys(line)).toEqual(PER_STEP);
      // The exp/ keys follow the explorer's and trainer's numbers in a metrics line.
      const keys = Object.keys(r.lines[0]!);
      expect(keys.indexOf('exp/invalid_reward/dropped_nan')).toBeGreaterThan(
        keys.indexOf('rolloutsPerSecond'),
      );
      expect(r.lines.map((l) => [l.experiencesKept, l.experiencesDropped])).toEqual([
        [4, 8],
        [4, 8],
        [4, 8],
      ]);
      // The hook sees the same numbers, checked against the payload schema.
      expect(r.payloads.length).toBe(3);
      for (const p of r.payloads) {
        expect(ExperienceOpsReportSchema.parse(p)).toEqual(p);
        expect(p).toEqual(PAYLOAD);
      }
      expect(r.log.filter((l) => l.startsWith('warning:'))).toEqual(
        [1, 2, 3].map(
          (s) =>
            `warning: step ${s}: experience operator grpo: grpo: rankPenalty skipped for 1 group(s) with a rollout that has no logprobs`,
        ),
      );
      const html = readFileSync(r.report.reportFile!, 'utf8');
      expect(html).toContain('<h2>Experience operators</h2>');
      expect([...html.matchAll(/<table class="operator" data-step="([^"]+)">/g)].map((m) => m[1])).toEqual([
        'invalid_reward',
        'reward_std_filter',
        'grpo',
      ]);
      expect(html).toMatch(
        /<tr data-metric="exp\/grpo\/advantage_std"><th>advantage_std<\/th><td data-value="0.5">0\.5000<\/td>/,
      );
      expect(html).toMatch(
        /<tr data-metric="exp\/reward_std_filter\/dropped"><th>dropped<\/th><td data-value="8">8<\/td>/,
      );
      expect(html).toContain(
        '<li>step 2: grpo: grpo: rankPenalty skipped for 1 group(s) with a rollout that has no logprobs</li>',
      );
      // metrics.csv gets the columns as well.
      const csv = readFileSync(join(r.runDir, 'metrics.csv'), 'utf8').split('\n');
      const cols = csv[0]!.split(',');
      expect(csv[1]!.split(',')[cols.indexOf('exp/reward_std_filter/dropped')]).toBe('8');
    });
  }

  it('train and bench run no experience operators: their records carry no exp/ keys and the hook never fires', async () => {
    const buffer = { table: 'shared_exp', sampler: { type: 'uniform', params: { maxUses: 4 } } };
    const fill = await run('fill', { mode: 'explore', steps: 2, checkpointEvery: 2 }, { buffer });
    expect(expKeys(fill.lines[1]!)).toEqual(PER_STEP);
    const train = await run(
      'train',
      { mode: 'train', steps: 2, checkpointEvery: 2, trainBatch: 4 },
      { buffer },
    );
    expect(train.lines.map((l) => [l.step, l.trainSteps, Object.keys(expKeys(l)).length])).toEqual([
      [1, 1, 0],
      [2, 2, 0],
    ]);
    expect(train.payloads).toEqual([]);
    expect(train.report.rolloutExamples).toEqual([]);
    const held = scriptedConfig(dir, 'bench-sets').evaluation;
    const bench = await run('bench', { mode: 'bench', steps: 1 }, { evaluation: held });
    expect(bench.lines.length).toBe(1);
    expect(Object.keys(expKeys(bench.lines[0]!))).toEqual([]);
    expect(bench.payloads).toEqual([]);
  });

  it('a graph with a branch: step names keep their route (exp/<branch>/<route>/<op>/…) and the report splits them right', async () => {
    const r = await run(
      'branch',
      { mode: 'explore', steps: 1, checkpointEvery: 1 },
      {
        experienceOps: [
          { op: 'invalid_reward' },
          {
            branch: {
              name: 'split',
              routes: [
                {
                  name: 'a',
                  when: { field: 'taskId', equals: 'a' },
                  operators: [{ op: 'grpo', params: { stdNormalize: false } }],
                },
              ],
              otherwise: [{ op: 'reward_std_filter' }],
            },
          },
        ],
      },
    );
    const line = r.lines[0]!;
    expect(line['exp/split/a/grpo/rows_in']).toBe(4);
    expect(line['exp/split/a/grpo/advantage_std']).toBe(0.5);
    expect(line['exp/split/otherwise/reward_std_filter/rows_in']).toBe(8);
    expect(line['exp/split/otherwise/reward_std_filter/dropped']).toBe(8);
    expect(line['exp/warnings']).toBeUndefined();
    const html = readFileSync(r.report.reportFile!, 'utf8');
    expect([...html.matchAll(/<table class="operator" data-step="([^"]+)">/g)].map((m) => m[1])).toEqual([
      'invalid_reward',
      'split/a/grpo',
      'split/otherwise/reward_std_filter',
    ]);
    expect(html).toContain('<p class="empty">no operator warnings</p>');
  });

  it('a resumed run (stopped after step 3, checkpoint at 2) has the same exp/ keys step for step as an uninterrupted one', async () => {
    const lifecycle = { mode: 'sync', steps: 4, checkpointEvery: 2 };
    const config = scriptedConfig(dir, 'resume', { evaluation: undefined, lifecycle });
    const at = (n: string) => ({
      baseDir: dir,
      dbDir: join(dir, `db-${n}`),
      runDir: join(dir, `run-${n}`),
      registries: scriptedRegistries(),
    });
    const straight = await runRft(config, at('straight'));
    await runRft(config, { ...at('resumed'), stopAfter: 3 });
    const resumed = await runRft(config, { ...at('resumed'), resume: true });
    expect(resumed.resumedFrom).toBe(2);
    expect(resumed.history.map(expKeys)).toEqual(straight.history.map(expKeys));
    expect(readMetrics(join(dir, 'run-resumed')).map(expKeys)).toEqual([
      PER_STEP,
      PER_STEP,
      PER_STEP,
      PER_STEP,
    ]);
  });
});
