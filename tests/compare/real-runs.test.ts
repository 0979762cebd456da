import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadRunComparison } from '../../src/lifecycle/report/compare/run-comparison.ts';
import { runRft } from '../../src/lifecycle/run/rft-run.ts';
import { captureMain } from '../cli/capture.ts';
import { tempDir } from '../helpers/tmp.ts';
import { readMetrics, scriptedConfig, scriptedRegistries } from '../lifecycle/evaluation-scripted.ts';

const dir = tempDir('winnow-compare-real-');
const db = join(dir, 'db');
const runs = join(dir, 'runs');

/** A real run (scripted model, counting trainer) whose folder winnow run wrote. */
async function run(name: string, over: Record<string, unknown>) {
  const config = scriptedConfig(dir, name, {
    lifecycle: { mode: 'sync', steps: 3, checkpointEvery: 3 },
    ...over,
  });
  return runRft(config, { baseDir: dir, dbDir: db, runsDir: runs, registries: scriptedRegistries() });
}

describe('comparing real run folders', () => {
  const ready = (async () => [await run('seq', {}), await run('rnd', { selector: { type: 'random' } })])();

  it('reads what winnow run wrote: statuses, step-0 evaluation, every step value, the config diff', async () => {
    const [a, b] = await ready;
    const c = await loadRunComparison([a!.runDir, b!.runDir]);
    expect(c.runs.map((r) => [r.id, r.status, r.steps, r.plannedSteps])).toEqual([
      [a!.runId, 'completed', 3, 3],
      [b!.runId, 'completed', 3, 3],
    ]);
    expect(c.steps).toEqual([0, 1, 2, 3]);
    for (const r of [a!, b!]) {
      const lines = readMetrics(r.runDir);
      expect(c.series.meanReward![r.runId]).toEqual([null, ...lines.map((l) => l.meanReward)]);
      expect(c.series['eval/alpha/pass@4']![r.runId]![0]).toBe(r.initialEvaluation!['eval/alpha/pass@4']);
    }
    const selector = c.configDiff.find((d) => d.path === 'selector.type');
    expect(selector).toEqual({
      path: 'selector.type',
      changesResults: true,
      values: ['"sequential"', '"random"'],
    });
    expect(c.configDiff.find((d) => d.path === 'name')?.values).toEqual(['"seq"', '"rnd"']);
  });

  it('winnow compare by run id takes the statuses from the database', async () => {
    const [a, b] = await ready;
    const out = join(dir, 'cmp.html');
    const r = await captureMain(['compare', a!.runId, b!.runId, '--runs', runs, '--db', db, '--out', out]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const html = readFileSync(out, 'utf8');
    expect(
      [
        ...html.matchAll(/<tr data-run="([^"]+)"><td>.*?<\/td><td>[^<]*<\/td><td title="[^"]*">(\w+)<\/td>/g),
      ].map((m) => [m[1], m[2]]),
    ).toEqual([
      [a!.runId, 'completed'],
      [b!.runId, 'completed'],
    ]);
  });
});
