import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Rejected } from '../../src/core/rejected.ts';
import type { StepRecord } from '../../src/lifecycle/run/step-record.ts';
import { RejectedStore } from '../../src/store/rejected-store.ts';
import { REPO_ROOT } from '../helpers/cli.ts';
import { tempDir } from '../helpers/tmp.ts';
import { fileLines, spawnWinnow, tableRows } from './harness.ts';
import { writeRftYaml } from './rft-files.ts';

/**
 * Issue #6 item 2: rollout errors, timeouts, empty responses and NaN rewards injected at 20 % each
 * (explorer.faults) in a real `winnow run`. The run must complete, count every fault, record every
 * lost row with its reason, and keep training on the good groups.
 */
const dir = tempDir('winnow-faults-');
const STEPS = 6;
const REPEAT = 4;
const BATCH = 8;
const TIMEOUT_MS = 600;

interface Report {
  steps: number;
  history: StepRecord[];
  counters: Record<string, number>;
  faults: { errors: number; timeouts: number; empty: number; nanRewards: number };
  runId: string;
  runDir: string;
}

let report: Report;
let rejected: Rejected[];
let buffer: Record<string, unknown>[];
let code: number | null;

beforeAll(async () => {
  const { file, db } = writeRftYaml(
    dir,
    'faulty',
    { lifecycle: { mode: 'sync', steps: STEPS, checkpointEvery: 3 } },
    (c) => {
      Object.assign(c.explorer as Record<string, unknown>, {
        repeat: REPEAT,
        batchTasks: BATCH,
        timeoutMs: TIMEOUT_MS,
        retries: 1,
        backoffMs: 10,
        faults: { errorRate: 0.2, timeoutRate: 0.2, emptyRate: 0.2, nanRewardRate: 0.2 },
      });
    },
  );
  const r = await spawnWinnow(['run', file, '--json']);
  code = r.code;
  report = JSON.parse(r.stdout) as Report;
  rejected = await (await RejectedStore.open(db)).read({ runId: report.runId });
  buffer = await tableRows(db, `${report.runId}_experiences`);
}, 120_000);

const sum = (f: (h: StepRecord) => number) => report.history.reduce((a, h) => a + f(h), 0);
const at = (step: string) => rejected.filter((x) => x.step === step);

describe('a run with 20 % rollout errors, timeouts, empty responses and NaN rewards', () => {
  it('completes every step and trains at every step on the groups that survived', () => {
    expect(code).toBe(0);
    expect(report.steps).toBe(STEPS);
    expect(report.history.map((h) => h.step)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(report.history.map((h) => h.trainSteps)).toEqual([1, 2, 3, 4, 5, 6]);
    for (const h of report.history) {
      expect(Number.isFinite(h.trainLoss)).toBe(true);
      expect(Number.isFinite(h.meanReward)).toBe(true);
      expect(h.experiencesKept).toBeGreaterThan(0);
    }
    expect(report.counters.trained).toBeGreaterThan(0);
  });

  it('injects every kind of fault at about the configured rate', () => {
    const f = report.faults;
    // Model calls: every task of every step, plus one retry per failed first attempt.
    const calls = STEPS * BATCH + (f.errors + f.timeouts - report.counters.failedGroups!);
    for (const n of [f.errors, f.timeouts, f.empty]) {
      expect(n / calls).toBeGreaterThan(0.08);
      expect(n / calls).toBeLessThan(0.35);
    }
    expect(f.nanRewards / report.counters.rollouts!).toBeGreaterThan(0.08);
    expect(f.nanRewards / report.counters.rollouts!).toBeLessThan(0.35);
  });

  it('records every group that failed after its retry in rejected, with the reason and the task it came from', () => {
    const failed = [...at('rollout:error'), ...at('rollout:timeout')];
    expect(failed.length).toBe(report.counters.failedGroups);
    expect(failed.length).toBe(sum((h) => h.failedGroups));
    expect(failed.length).toBeGreaterThan(0);
    for (const x of at('rollout:error'))
      expect(x.reason).toBe(
        'injected fault: rollout error (HTTP 500 from model server) (after 2 attempt(s))',
      );
    for (const x of at('rollout:timeout'))
      expect(x.reason).toBe(`timed out after ${TIMEOUT_MS} ms (after 2 attempt(s))`);
    for (const x of failed) {
      expect(x.rowId).toMatch(/^s\d+:/); // the group id: explorer step and task
      expect(x.file).toBe(join(REPO_ROOT, 'datasets', 'arithmetic', 'train.jsonl'));
      expect(x.row).toBeGreaterThan(0);
    }
    // A group fails only when both of its attempts failed, each by an injected error or timeout.
    expect(report.faults.errors + report.faults.timeouts).toBeGreaterThanOrEqual(2 * failed.length);
  });

  it('drops every NaN reward with its reason, and none reaches the buffer', () => {
    const nan = at('exp:invalid_reward');
    expect(nan.length).toBe(report.faults.nanRewards);
    for (const x of nan) expect(x.reason).toBe('reward is NaN');
    expect(buffer.length).toBeGreaterThan(0);
    for (const row of buffer) expect(Number.isFinite(row.reward as number)).toBe(true);
    const nanIds = new Set(nan.map((x) => x.rowId));
    for (const row of buffer) expect(nanIds.has(String(row.id))).toBe(false);
  });

  it('counts empty responses per step, and marks each one in the experience it produced', () => {
    // An injected empty response empties the whole group of `repeat` rollouts.
    expect(sum((h) => h.emptyResponses)).toBe(report.faults.empty * REPEAT);
    const empty = buffer.filter((r) => r.response === '');
    expect(empty.length).toBeGreaterThan(0);
    for (const r of empty) expect(JSON.parse(String(r.info)).empty).toBe(true);
    for (const r of buffer.filter((x) => x.response !== ''))
      expect(JSON.parse(String(r.info)).empty).toBeUndefined();
  });

  it('keeps the books: per step, rollouts = surviving groups × repeat = kept + dropped; no failed group is stored', () => {
    for (const h of report.history) {
      expect(h.rollouts).toBe((h.tasks - h.failedGroups) * REPEAT);
      expect(h.experiencesKept + h.experiencesDropped).toBe(h.rollouts);
    }
    expect(sum((h) => h.rollouts)).toBe(report.counters.rollouts);
    expect(buffer.length).toBe(sum((h) => h.experiencesKept));
    const failedGroups = new Set([...at('rollout:error'), ...at('rollout:timeout')].map((x) => x.rowId));
    for (const row of buffer) expect(failedGroups.has(String(row.group_id))).toBe(false);
    expect(new Set(buffer.map((r) => r.id)).size).toBe(buffer.length);
  });

  it('writes the same step records to metrics.jsonl in the run folder', () => {
    console.info(
      `faults injected: ${JSON.stringify(report.faults)}; recorded in rejected: ${JSON.stringify({
        'rollout:error': at('rollout:error').length,
        'rollout:timeout': at('rollout:timeout').length,
        'exp:invalid_reward': at('exp:invalid_reward').length,
      })}; empty responses counted: ${sum((h) => h.emptyResponses)}; rollouts ${report.counters.rollouts}, trained on ${report.counters.trained}`,
    );
    const lines = fileLines(join(report.runDir, 'metrics.jsonl')).map((l) => JSON.parse(l) as StepRecord);
    expect(lines.map((h) => [h.step, h.failedGroups, h.emptyResponses, h.experiencesKept])).toEqual(
      report.history.map((h) => [h.step, h.failedGroups, h.emptyResponses, h.experiencesKept]),
    );
  });
});
