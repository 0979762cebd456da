import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatRftReport } from '../../src/cli/run-report.ts';
import { ConfigError } from '../../src/core/errors.ts';
import { Hooks } from '../../src/lifecycle/hooks.ts';
import type { RftEvents } from '../../src/lifecycle/run/rft-events.ts';
import { parseRftConfig, runRft } from '../../src/lifecycle/run/rft-run.ts';
import { RunTable } from '../../src/store/run-table.ts';
import { REPO_ROOT } from '../helpers/cli.ts';
import { smallRftRaw } from '../helpers/rft.ts';
import { tempDir } from '../helpers/tmp.ts';
import { readMetrics, scriptedConfig, scriptedRegistries, writeTasks } from './evaluation-scripted.ts';

const dir = tempDir('winnow-eval-');

// Worked out by hand from the scripted model (see evaluation-scripted.ts):
// alpha: 0+1+2+4 = 7 of 16 samples right; 3 of 4 tasks have a right sample.
// beta: 0+0+3 = 3 of 12 samples right; 1 of 3 tasks has a right sample.
const ALPHA = { 'eval/alpha/mean@4': 7 / 16, 'eval/alpha/pass@4': 3 / 4 };
const BETA = { 'eval/beta/mean@4': 3 / 12, 'eval/beta/pass@4': 1 / 3 };
const BOTH = { ...ALPHA, ...BETA };

const evalKeysOf = (rec: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(rec).filter(([k]) => k.startsWith('eval/')));

/** The `data-value` of the report's evaluation cells, by metric key and step. */
function reportCells(html: string): Array<{ key: string; step: number; value: number }> {
  const section = html.slice(html.indexOf('<h2>Evaluation sets</h2>'));
  return [...section.matchAll(/data-key="([^"]+)" data-step="(\d+)" data-value="([^"]+)"/g)].map((m) => ({
    key: m[1]!,
    step: Number(m[2]),
    value: Number(m[3]),
  }));
}

describe('evaluation sets', () => {
  it('two sets with k = 4: mean@4 and pass@4 per set at steps 0, 2 and 4 in metrics.jsonl, the report, the hooks and the log', async () => {
    const config = scriptedConfig(dir, 'two-sets');
    const events: Array<RftEvents['onEvaluate']> = [];
    const hooks = new Hooks<RftEvents>().on('onEvaluate', (p) => void events.push({ ...p }));
    const log: string[] = [];
    const runDir = join(dir, 'run-two-sets');
    const r = await runRft(config, {
      baseDir: dir,
      dbDir: join(dir, 'db-two-sets'),
      runDir,
      registries: scriptedRegistries(),
      hooks,
      log: (l) => log.push(l),
    });
    const lines = readMetrics(runDir);
    expect(lines.map((l) => l.step)).toEqual([1, 2, 3, 4]);
    expect(lines.map(evalKeysOf)).toEqual([{}, BOTH, {}, BOTH]);
    // Key order in a metrics line: the set's mean@k then pass@k, sets in config order.
    expect(Object.keys(evalKeysOf(lines[1]!))).toEqual([
      'eval/alpha/mean@4',
      'eval/alpha/pass@4',
      'eval/beta/mean@4',
      'eval/beta/pass@4',
    ]);
    // Step 0 (before the first step) is kept in the counters and the result.
    expect(r.initialEvaluation).toEqual(BOTH);
    expect(r.counters['initial/eval/beta/pass@4']).toBe(1 / 3);
    expect(events.map((e) => [e.step, e.set, e.k, e.tasks, e.accuracy, e.passAtK])).toEqual(
      [0, 2, 4].flatMap((step) => [
        [step, 'alpha', 4, 4, 7 / 16, 3 / 4],
        [step, 'beta', 4, 3, 3 / 12, 1 / 3],
      ]),
    );
    expect(log).toContain("evaluation 'alpha' at step 4: mean@4 0.438, pass@4 0.750 (4 tasks)");
    // The end-of-run summary of `winnow run` names each set's first and last values.
    expect(formatRftReport(r).split('\n')).toContain(
      'evaluation: alpha mean@4 43.8% → 43.8%, pass@4 75.0% → 75.0%; beta mean@4 25.0% → 25.0%, pass@4 33.3% → 33.3%',
    );

    const html = readFileSync(r.reportFile!, 'utf8');
    expect(html).toContain('<h2>Evaluation sets</h2>');
    expect(html).toContain('Evaluation set alpha (k = 4)');
    expect(html).toContain('Evaluation set beta (k = 4)');
    // First (step 0) and last (step 4) of each set, exact.
    expect(reportCells(html)).toEqual([
      { key: 'eval/alpha/mean@4', step: 0, value: 7 / 16 },
      { key: 'eval/alpha/mean@4', step: 4, value: 7 / 16 },
      { key: 'eval/alpha/pass@4', step: 0, value: 3 / 4 },
      { key: 'eval/alpha/pass@4', step: 4, value: 3 / 4 },
      { key: 'eval/beta/mean@4', step: 0, value: 3 / 12 },
      { key: 'eval/beta/mean@4', step: 4, value: 3 / 12 },
      { key: 'eval/beta/pass@4', step: 0, value: 1 / 3 },
      { key: 'eval/beta/pass@4', step: 4, value: 1 / 3 },
    ]);
    // metrics.csv has the columns too.
    const csv = readFileSync(join(runDir, 'metrics.csv'), 'utf8').split('\n');
    const cols = csv[0]!.split(',');
    expect(csv[4]!.split(',')[cols.indexOf('eval/alpha/pass@4')]).toBe('0.75');
  });

  it('rollout examples: the best and the worst rollout of every step in run.json and the runs table', async () => {
    const config = scriptedConfig(dir, 'examples', {
      lifecycle: { mode: 'explore', steps: 2, checkpointEvery: 2 },
    });
    const runDir = join(dir, 'run-examples');
    const dbDir = join(dir, 'db-examples');
    const r = await runRft(config, { baseDir: dir, dbDir, runDir, registries: scriptedRegistries() });
    // Tasks a (q2), b (q4), c (q0) in that order: the first right rollout is a's first sample, the
    // first wrong one a's third.
    const expected = [1, 2].flatMap((step) => [
      { step, kind: 'best', taskId: 'a', prompt: 'q2 a', response: 'yes', reward: 1 },
      { step, kind: 'worst', taskId: 'a', prompt: 'q2 a', response: 'no', reward: 0 },
    ]);
    expect(r.rolloutExamples).toEqual(expected);
    const runJson = JSON.parse(readFileSync(join(runDir, 'run.json'), 'utf8'));
    expect(runJson.rolloutExamples).toEqual(expected);
    const record = await (await RunTable.open(dbDir)).get(r.runId);
    expect(JSON.parse(record!.summary).rolloutExamples).toEqual(expected);
    const html = readFileSync(r.reportFile!, 'utf8');
    expect(html).toContain('<h2>Rollout examples</h2>');
    expect(
      [...html.matchAll(/<tr data-step="(\d)" data-kind="(\w+)">/g)].map((m) => `${m[1]}${m[2]}`),
    ).toEqual(['1best', '1worst', '2best', '2worst']);
  });

  it('bench mode evaluates every set (no held-out set needed): one step-0 record with exact numbers', async () => {
    const config = scriptedConfig(dir, 'bench', { lifecycle: { mode: 'bench', steps: 1 } });
    const runDir = join(dir, 'run-bench');
    const r = await runRft(config, {
      baseDir: dir,
      dbDir: join(dir, 'db-bench'),
      runDir,
      registries: scriptedRegistries(),
    });
    const lines = readMetrics(runDir);
    expect(lines.length).toBe(1);
    expect(evalKeysOf(lines[0]!)).toEqual(BOTH);
    // Without a held-out set the step's numbers cover every evaluation sample: 10 right of 28.
    expect(lines[0]!).toMatchObject({ step: 0, tasks: 7, rollouts: 28, meanReward: 10 / 28 });
    expect(lines[0]!.accuracy).toBeUndefined();
    expect(r.initialAccuracy).toBeUndefined();
  });

  it('n = 4 samples for pass@2 (bench mode): the unbiased estimator over all four, worked out by hand', async () => {
    const base = scriptedConfig(dir, 'bench-n', { lifecycle: { mode: 'bench', steps: 1 } });
    const sets = base.evaluation!.sets.map((s) => ({ ...s, n: 4, k: 2 }));
    const config = { ...base, evaluation: { ...base.evaluation!, sets } };
    const runDir = join(dir, 'run-bench-n');
    await runRft(config, {
      baseDir: dir,
      dbDir: join(dir, 'db-bench-n'),
      runDir,
      registries: scriptedRegistries(),
    });
    const [line] = readMetrics(runDir);
    // alpha: c = 0, 1, 2, 4 of n = 4; pass@2 = 1 − C(4−c, 2)/C(4, 2) = 0, 1/2, 5/6, 1 → mean 7/12.
    // beta: c = 0, 0, 3; pass@2 = 0, 0, 1 (one wrong sample < k) → 1/3. mean@2 is the mean of all n.
    const got = evalKeysOf(line!);
    expect(Object.keys(got).sort()).toEqual([
      'eval/alpha/mean@2',
      'eval/alpha/pass@2',
      'eval/beta/mean@2',
      'eval/beta/pass@2',
    ]);
    expect(got['eval/alpha/mean@2']).toBe(7 / 16);
    expect(got['eval/alpha/pass@2']).toBeCloseTo(7 / 12, 14);
    expect(got['eval/beta/mean@2']).toBe(3 / 12);
    expect(got['eval/beta/pass@2']).toBeCloseTo(1 / 3, 14);
    expect(line).toMatchObject({ rollouts: 28 });
  });

  it('sync mode with a held-out set and evaluation sets: heldout stays as it was (accuracy), sets add their keys', async () => {
    const held = writeTasks(join(dir, 'held.jsonl'), ['h1', 'h2'], [1, 0]);
    const config = scriptedConfig(dir, 'sync', {
      heldout: {
        source: { path: held, mapping: { taskset: 'h', id: 'id', prompt: 'prompt', answer: 'answer' } },
        every: 1,
      },
      lifecycle: { mode: 'sync', steps: 2, checkpointEvery: 2 },
    });
    const runDir = join(dir, 'run-sync');
    const r = await runRft(config, {
      baseDir: dir,
      dbDir: join(dir, 'db-sync'),
      runDir,
      registries: scriptedRegistries(),
    });
    // Greedy held-out: h1's single sample is right (q1), h2's wrong.
    expect(r.initialAccuracy).toBe(0.5);
    expect(readMetrics(runDir).map((l) => [l.accuracy, evalKeysOf(l)])).toEqual([
      [0.5, {}],
      [0.5, BOTH],
    ]);
  });

  it('checks the block before anything runs: duplicate names, bad names, did-you-mean keys, an empty set', async () => {
    const src = {
      path: 'datasets/arithmetic/heldout.jsonl',
      mapping: { taskset: 't', id: 'id', prompt: 'prompt' },
    };
    const err = (extra: Record<string, unknown>) => {
      try {
        parseRftConfig(smallRftRaw('x', extra), 'run.yaml');
        return 'parsed';
      } catch (e) {
        return (e as Error).message;
      }
    };
    expect(err({ evaluations: { sets: [] } })).toBe(
      "run.yaml: evaluations: unknown key 'evaluations' (did you mean 'evaluation'?)",
    );
    expect(
      err({
        evaluation: {
          sets: [
            { name: 'a', source: src, k: 2 },
            { name: 'a', source: src },
          ],
        },
      }),
    ).toBe("run.yaml: evaluation.sets[1].name: duplicate evaluation set name 'a'");
    expect(err({ evaluation: { sets: [{ name: 'a/b', source: src }] } })).toBe(
      'run.yaml: evaluation.sets[0].name: letters, digits, _ . and - only (it names metric keys)',
    );
    expect(err({ evaluation: { sets: [] } })).toContain('evaluation.sets:');
    expect(err({ evaluation: { sets: [{ name: 'a', source: src, n: 4, k: 8 }] } })).toBe(
      'run.yaml: evaluation.sets[0].k: k (8) is above n (4): pass@k needs at least k samples per task (raise n or lower k)',
    );
    const parsed = parseRftConfig(smallRftRaw('x', { evaluation: { sets: [{ name: 'a', source: src }] } }));
    expect(parsed.evaluation?.every).toBe(5);
    expect(parsed.evaluation?.sets.map((x) => [x.name, x.k, x.correctAt, x.temperature, x.size])).toEqual([
      ['a', 1, 1, undefined, undefined],
    ]);

    const empty = writeTasks(join(dir, 'empty.jsonl'), [], []);
    const config = scriptedConfig(dir, 'empty-set', {
      evaluation: {
        sets: [
          {
            name: 'none',
            source: { path: empty, mapping: { taskset: 'e', id: 'id', prompt: 'prompt' } },
            k: 2,
          },
        ],
      },
    });
    const runDir = join(dir, 'run-empty-set');
    const failed = await runRft(config, {
      baseDir: dir,
      dbDir: join(dir, 'db-empty-set'),
      runDir,
      registries: scriptedRegistries(),
    }).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(ConfigError);
    expect((failed as Error).message).toBe(
      "evaluation.sets[0].source: evaluation set 'none' holds no usable tasks (0 row(s) rejected) (check the source and its mapping: winnow inspect shows what was rejected)",
    );
    expect(existsSync(runDir)).toBe(false);
  });
});

describe('evaluation determinism', () => {
  it('a resumed run (stopped after step 3, checkpoint at 2) gives the same sampled evaluation numbers and examples as an uninterrupted one', async () => {
    const mapping = { taskset: 'arithmetic', id: 'id', prompt: 'prompt', answer: 'answer' };
    const config = parseRftConfig(
      smallRftRaw('eval-resume', {
        heldout: undefined,
        evaluation: {
          every: 2,
          sets: [
            {
              name: 'held',
              source: { path: 'datasets/arithmetic/heldout.jsonl', mapping },
              size: 8,
              k: 4,
              temperature: 1,
            },
            { name: 'train', source: { path: 'datasets/arithmetic/train.jsonl', mapping }, size: 6, k: 3 },
          ],
        },
        lifecycle: { mode: 'sync', steps: 4, checkpointEvery: 2 },
      }),
    );
    const at = (n: string) => ({
      baseDir: REPO_ROOT,
      dbDir: join(dir, `db-${n}`),
      runDir: join(dir, `run-${n}`),
    });
    const straight = await runRft(config, at('straight'));
    await runRft(config, { ...at('resumed'), stopAfter: 3 });
    const resumed = await runRft(config, { ...at('resumed'), resume: true });
    expect(resumed.resumedFrom).toBe(2);
    const evals = (h: typeof straight.history) => h.map((rec) => ({ step: rec.step, ...evalKeysOf(rec) }));
    expect(evals(resumed.history)).toEqual(evals(straight.history));
    expect(Object.keys(evalKeysOf(straight.history[3]!))).toEqual([
      'eval/held/mean@4',
      'eval/held/pass@4',
      'eval/train/mean@3',
      'eval/train/pass@3',
    ]);
    expect(resumed.initialEvaluation).toEqual(straight.initialEvaluation);
    expect(resumed.rolloutExamples).toEqual(straight.rolloutExamples);
    expect(resumed.rolloutExamples.map((x) => `${x.step}${x.kind}`)).toEqual([
      '1best',
      '1worst',
      '2best',
      '2worst',
      '3best',
      '3worst',
      '4best',
      '4worst',
    ]);
    // Evaluation draws nothing from the training streams: without the sets, training is the same.
    const plain = await runRft({ ...config, evaluation: undefined }, at('plain'));
    const training = (h: typeof straight.history) =>
      h.map((rec) => [rec.step, rec.meanReward, rec.trainLoss, rec.experiencesKept, rec.explorerVersion]);
    expect(training(plain.history)).toEqual(training(straight.history));
    // Sampled at temperature 1, the 4 samples of a task differ: somewhere pass@4 exceeds mean@4.
    const held = straight.history.filter((h) => 'eval/held/pass@4' in h);
    expect(held.some((h) => (h['eval/held/pass@4'] as number) > (h['eval/held/mean@4'] as number))).toBe(
      true,
    );
    // pass@k never falls below mean@k with 0/1 rewards.
    for (const rec of straight.history.filter((h) => 'eval/held/pass@4' in h))
      expect(rec['eval/held/pass@4'] as number).toBeGreaterThanOrEqual(rec['eval/held/mean@4'] as number);
  });
});
