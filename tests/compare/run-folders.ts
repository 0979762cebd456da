import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** A stored config in the shape winnow run writes (only the keys these tests read or diff). */
export function storedConfig(o: {
  selector: Record<string, unknown>;
  sampler?: string;
  steps?: number;
  monitors?: unknown[];
}): Record<string, unknown> {
  return {
    name: 'arith',
    seed: 3,
    selector: o.selector,
    buffer: { sampler: { type: o.sampler ?? 'fifo', params: {} }, keepGroups: true, capacity: 1000 },
    lifecycle: { mode: 'sync', steps: o.steps ?? 3, checkpointEvery: 1 },
    monitors: o.monitors ?? ['html_report'],
  };
}

/**
 * Write a run folder as winnow run leaves it: run-config.json, metrics.jsonl (one step record per
 * line) and, when `report` is given, run.json.
 */
export function writeRunFolder(
  dir: string,
  o: {
    runId: string;
    config: Record<string, unknown>;
    records: Array<Record<string, unknown>>;
    report?: Record<string, unknown>;
  },
): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'run-config.json'),
    JSON.stringify({
      runId: o.runId,
      configHash: `hash-${o.runId}`,
      bufferTable: `${o.runId}_exp`,
      config: o.config,
    }),
  );
  writeFileSync(join(dir, 'metrics.jsonl'), o.records.map((r) => `${JSON.stringify(r)}\n`).join(''));
  if (o.report) writeFileSync(join(dir, 'run.json'), JSON.stringify({ runId: o.runId, ...o.report }));
  return dir;
}

/** Two small runs that differ in selector and sampler: BOTS with priority replay, random with FIFO. */
export function twoRuns(root: string): { bots: string; random: string } {
  const bots = writeRunFolder(join(root, 'bots-1'), {
    runId: 'bots-1',
    config: storedConfig({ selector: { type: 'bots', params: { alpha: 0.5 } }, sampler: 'version_priority' }),
    records: [
      {
        step: 1,
        meanReward: 0.25,
        effectiveTaskRatio: 0.5,
        meanDifficulty: 0.4,
        trainLoss: 0.9,
        exploreMs: 10,
      },
      {
        step: 2,
        meanReward: 0.5,
        effectiveTaskRatio: 0.75,
        meanDifficulty: 0.45,
        trainLoss: null,
        accuracy: 0.4,
        exploreMs: 12,
        exp: ['w'],
      },
      {
        step: 3,
        meanReward: 0.625,
        effectiveTaskRatio: 1,
        meanDifficulty: 0.5,
        trainLoss: 0.7,
        accuracy: 0.43,
        exploreMs: 11,
      },
    ],
    report: { steps: 3, initialAccuracy: 0.33, finalAccuracy: 0.43, durationMs: 1500, counters: {} },
  });
  const random = writeRunFolder(join(root, 'random-1'), {
    runId: 'random-1',
    config: storedConfig({ selector: { type: 'random' }, steps: 4, monitors: [] }),
    records: [
      {
        step: 1,
        meanReward: 0.125,
        effectiveTaskRatio: 0.25,
        meanDifficulty: 0.5,
        trainLoss: 1.1,
        exploreMs: 9,
      },
      {
        step: 2,
        meanReward: 0.25,
        effectiveTaskRatio: 0.5,
        meanDifficulty: 0.5,
        trainLoss: 1,
        accuracy: 0.35,
        exploreMs: 9,
      },
    ],
  });
  return { bots, random };
}
