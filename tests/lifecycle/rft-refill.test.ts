import { describe, expect, it } from 'vitest';
import type { Experience } from '../../src/core/experience.ts';
import { Hooks } from '../../src/lifecycle/hooks.ts';
import type { ExperienceOpsReport } from '../../src/lifecycle/run/operator-report.ts';
import type { RftConfig } from '../../src/lifecycle/run/rft-config.ts';
import type { RftEvents } from '../../src/lifecycle/run/rft-events.ts';
import { smallRftConfig } from '../helpers/rft.ts';
import { tempDir } from '../helpers/tmp.ts';
import { placeIn, runLoop } from './run-loop-harness.ts';

const dir = tempDir('winnow-refill-');
const BATCH = 4;
const EXTRA = 4;
const REPEAT = 4;
const TARGET = 4;
const STEPS = 4;

/** Group ids of a step's rollouts with mixed (learnable) rewards, in batch order. */
function mixedGroups(rows: readonly Experience[]): string[] {
  const order: string[] = [];
  const rewards = new Map<string, number[]>();
  for (const e of rows) {
    if (!rewards.has(e.groupId)) {
      order.push(e.groupId);
      rewards.set(e.groupId, []);
    }
    rewards.get(e.groupId)!.push(e.reward);
  }
  return order.filter((g) => {
    const r = rewards.get(g)!;
    return r.some((x) => x !== r[0]);
  });
}

type StepRecord = Record<string, unknown> & {
  tasks: number;
  rollouts: number;
  experiencesKept: number;
  experiencesDropped: number;
};

async function refillRun(name: string, temperature: number, filter: Record<string, unknown>, tasks?: object) {
  const base = smallRftConfig(name, {
    heldout: undefined,
    experienceOps: [
      { op: 'invalid_reward' },
      { op: 'reward_std_filter', params: { refill: true, targetGroups: TARGET, ...filter } },
      { op: 'grpo' },
    ],
    lifecycle: { mode: 'sync', steps: STEPS, checkpointEvery: STEPS },
  });
  const config: RftConfig = {
    ...base,
    ...(tasks ? { tasks: { ...base.tasks, ...tasks } as RftConfig['tasks'] } : {}),
    explorer: { ...base.explorer, batchTasks: BATCH, repeat: REPEAT, extraGroups: EXTRA, temperature },
  };
  const mixed: string[][] = [];
  const ops: ExperienceOpsReport[] = [];
  const hooks = new Hooks<RftEvents>()
    .on('afterRollout', (p) => void mixed.push(mixedGroups(p.rows)))
    .on('afterExperienceOps', (p) => void ops.push(p.operators));
  const { result, seen } = await runLoop(config, placeIn(dir, name), {
    hooks,
    inspect: async (parts, _r, rejected) => ({
      buffered: await parts.buffer.count(),
      rejected: await rejected.read({ runId: name }),
    }),
  });
  return { h: result.history as unknown as StepRecord[], counters: result.counters, seen: seen!, mixed, ops };
}

describe('refill: reward_std_filter draws rounds until targetGroups groups pass (as dapo_ds)', () => {
  it('a mostly-solved pool: every batch filled, every extra group rolled out and billed, rounds per step reported', async () => {
    // Only the easiest tasks at a low temperature: most groups are all correct.
    const { h, counters, seen, mixed } = await refillRun(
      'refill-solved',
      0.3,
      { maxRounds: 50 },
      { filter: { field: 'features.difficulty', lte: 0.1 } },
    );
    // Every step trains on exactly targetGroups groups.
    expect(h.map((r) => r.experiencesKept)).toEqual(Array(STEPS).fill(TARGET * REPEAT));
    expect(mixed.map((m) => m.length)).toEqual(Array(STEPS).fill(TARGET));
    // The bill: every group drawn in every round, kept or not.
    for (const r of h) {
      expect(r.rolloutsSpent).toBe((r.fullGroups as number) * REPEAT);
      expect(r.fullGroups).toBe(TARGET + (r.discardedGroups as number));
    }
    expect(counters.rolloutsSpent).toBe(h.reduce((a, r) => a + (r.rolloutsSpent as number), 0));
    expect(h.every((r) => (r.rounds as number) > 1)).toBe(true);
    // Groups paid for but not trained on are recorded with their reason, one row per group.
    const discarded = seen.rejected.filter((r) => r.step === 'stage');
    expect(discarded).toHaveLength(h.reduce((a, r) => a + (r.discardedGroups as number), 0));
    expect(new Set(discarded.map((r) => r.reason))).toEqual(
      new Set(['discarded by reward_std_filter_refill: group rewards all equal (no gradient)']),
    );
    expect(seen.buffered).toBe(STEPS * TARGET * REPEAT);
    // This seed: rounds of 8 groups (⌈2 × missing⌉ after the first), 17, 12, 21 and 10 of them.
    expect(h.map((r) => [r.rounds, r.asked, r.fullGroups, r.rolloutsSpent])).toEqual([
      [17, 68, 68, 272],
      [12, 56, 56, 224],
      [21, 106, 106, 424],
      [10, 50, 50, 200],
    ]);
    expect(counters.rolloutsSpent).toBe(272 + 224 + 424 + 200);
  });

  it('stops at maxRounds: the step trains on what it kept, groups_short says how many were missing', async () => {
    const { h, ops } = await refillRun(
      'refill-capped',
      0.3,
      { maxRounds: 1 },
      { filter: { field: 'features.difficulty', lte: 0.1 } },
    );
    const short = ops.map((o) => o.steps.find((x) => x.op === 'reward_std_filter')!.metrics.groups_short);
    // One round of batchTasks + extraGroups = 8 groups: one mixed group in two steps, none in the others.
    expect(h.map((r) => [r.rounds, r.fullGroups, r.rolloutsSpent, r.experiencesKept])).toEqual([
      [1, 8, 32, 4],
      [1, 8, 32, 0],
      [1, 8, 32, 4],
      [1, 8, 32, 0],
    ]);
    // The filter reports its shortfall on the steps it saw a group; the others trained on nothing.
    expect(short).toEqual([3, undefined, 3, undefined]);
  });
});
