import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  loadRunComparison,
  RunFolderError,
  runComparisonSchema,
} from '../../src/lifecycle/report/compare/run-comparison.ts';
import { tempDir } from '../helpers/tmp.ts';
import { storedConfig, twoRuns, writeRunFolder } from './run-folders.ts';

const root = tempDir('winnow-compare-');
const { bots, random } = twoRuns(root);

describe('loadRunComparison', () => {
  it('gives each run its id, folder, status, headline numbers and config', async () => {
    const c = await loadRunComparison([bots, random]);
    expect(runComparisonSchema.parse(c)).toEqual(c);
    expect(c.runs.map((r) => [r.id, r.dir, r.name, r.status, r.steps, r.plannedSteps, r.configHash])).toEqual(
      [
        ['bots-1', bots, 'arith', 'completed', 3, 3, 'hash-bots-1'],
        ['random-1', random, 'arith', 'unfinished', 2, 4, 'hash-random-1'],
      ],
    );
    expect(c.runs[1]!.statusNote).toBe('no run.json yet: running, or stopped before its end');
    expect(c.runs[0]!.headline).toEqual({
      initialAccuracy: 0.33,
      finalAccuracy: 0.43,
      finalMeanReward: 0.625,
      durationMs: 1500,
    });
    expect(c.runs[1]!.headline).toEqual({
      initialAccuracy: null,
      finalAccuracy: 0.35,
      finalMeanReward: 0.25,
      durationMs: null,
    });
    expect(c.runs[0]!.config.selector).toEqual({ type: 'bots', params: { alpha: 0.5 } });
  });

  it('aligns every metric by step (step 0 from the measurement before training), nulls where absent', async () => {
    const c = await loadRunComparison([bots, random]);
    expect(c.steps).toEqual([0, 1, 2, 3]);
    expect(c.metrics.map((m) => m.key)).toEqual([
      'meanReward',
      'accuracy',
      'effectiveTaskRatio',
      'meanDifficulty',
      'trainLoss',
      'exploreMs',
    ]);
    expect(c.metrics.find((m) => m.key === 'accuracy')).toMatchObject({
      label: 'held-out accuracy',
      unit: 'ratio',
    });
    expect(c.metrics.find((m) => m.key === 'exploreMs')!.unit).toBe('ms');
    expect(c.series.accuracy).toEqual({
      'bots-1': [0.33, null, 0.4, 0.43],
      'random-1': [null, null, 0.35, null],
    });
    expect(c.series.meanReward).toEqual({
      'bots-1': [null, 0.25, 0.5, 0.625],
      'random-1': [null, 0.125, 0.25, null],
    });
    // NaN is written to metrics.jsonl as null: an absent value, not a zero.
    expect(c.series.trainLoss).toEqual({
      'bots-1': [null, 0.9, null, 0.7],
      'random-1': [null, 1.1, 1, null],
    });
    expect(c.metrics.find((m) => m.key === 'accuracy')!.runs).toEqual(['bots-1', 'random-1']);
  });

  it('names the wanted metrics no run records', async () => {
    const c = await loadRunComparison([bots, random]);
    expect(c.missing.map((m) => m.key)).toEqual(['replayReuse', 'staleness']);
    expect(c.missing[0]!.reason).toBe("no run's step records (metrics.jsonl) carry it");
  });

  it('diffs the configs structurally: changed leaves, plug-in params, whether results change', async () => {
    const c = await loadRunComparison([bots, random]);
    expect(c.configDiff).toEqual([
      { path: 'buffer.sampler.type', changesResults: true, values: ['"version_priority"', '"fifo"'] },
      { path: 'lifecycle.steps', changesResults: false, values: ['3', '4'] },
      { path: 'monitors', changesResults: false, values: ['["html_report"]', '[]'] },
      { path: 'selector.params', changesResults: true, values: ['{"alpha":0.5}', null] },
      { path: 'selector.type', changesResults: true, values: ['"bots"', '"random"'] },
    ]);
  });

  it('takes the database status when given, and one run alone has no diff', async () => {
    const c = await loadRunComparison([random], {
      statuses: [{ runId: 'random-1', status: 'failed', statusNote: 'boom' }],
    });
    expect(c.runs[0]).toMatchObject({ status: 'failed', statusNote: 'boom' });
    expect(c.configDiff).toEqual([]);
    expect(c.steps).toEqual([1, 2]);
  });

  it('reads a stopped run as interrupted, and evaluation sets with their step-0 numbers', async () => {
    const dir = writeRunFolder(join(root, 'stopped'), {
      runId: 'stopped-1',
      config: storedConfig({ selector: { type: 'random' }, steps: 5 }),
      records: [{ step: 1, 'eval/math/pass@4': 0.5, replayReuse: 0.2 }],
      report: { steps: 1, initialEvaluation: { 'eval/math/pass@4': 0.25 } },
    });
    const c = await loadRunComparison([dir]);
    expect(c.runs[0]).toMatchObject({
      status: 'interrupted',
      statusNote: 'from run.json: stopped after step 1',
    });
    expect(c.series['eval/math/pass@4']).toEqual({ 'stopped-1': [0.25, 0.5] });
    expect(c.metrics.map((m) => [m.key, m.label, m.unit])).toEqual([
      ['eval/math/pass@4', 'math pass@4', 'ratio'],
      ['replayReuse', 'replayReuse', 'number'],
    ]);
    expect(c.missing.map((m) => m.key)).toEqual([
      'meanReward',
      'accuracy',
      'effectiveTaskRatio',
      'meanDifficulty',
      'staleness',
    ]);
  });

  it('refuses a missing folder, a foreign folder, a damaged line and a run given twice, in one line each', async () => {
    const foreign = join(root, 'foreign');
    mkdirSync(foreign);
    writeFileSync(join(foreign, 'notes.txt'), 'hi');
    const damaged = writeRunFolder(join(root, 'damaged'), {
      runId: 'damaged-1',
      config: storedConfig({ selector: { type: 'random' } }),
      records: [{ step: 1 }],
    });
    writeFileSync(join(damaged, 'metrics.jsonl'), '{"step":1}\n{"step":\n');
    const cases: Array<[string[], string]> = [
      [
        [join(root, 'nope')],
        `${join(root, 'nope')}: no such run folder (winnow runs lists the runs and their folders)`,
      ],
      [
        [foreign],
        `${foreign}: not a Winnow RFT run folder (no run-config.json; winnow run writes one in each run folder)`,
      ],
      [
        [damaged],
        `${join(damaged, 'metrics.jsonl')}:2: not a JSON object (metrics.jsonl holds one step record per line)`,
      ],
      [[bots, bots], `run 'bots-1' is given twice (${bots} and ${bots}); name each run once`],
    ];
    for (const [dirs, message] of cases) {
      const err = await loadRunComparison(dirs).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(RunFolderError);
      expect((err as Error).message).toBe(message);
      expect((err as Error).message).not.toContain('\n');
    }
  });
});
