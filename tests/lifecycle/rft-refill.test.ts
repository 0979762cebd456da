import { describe, expect, it } from 'vitest';
import type { Experience } from '../../src/core/experience.ts';
import { Hooks } from '../../src/lifecycle/hooks.ts';
import type { RftConfig } from '../../src/lifecycle/rft-config.ts';
import type { RftEvents } from '../../src/lifecycle/rft-events.ts';
import { SURPLUS_REASON } from '../../src/operators/experience/reward-std-filter.ts';
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

describe('refill: explorer.extraGroups over-samples, reward_std_filter keeps targetGroups', () => {
  it('rolls out batchTasks + extraGroups groups, feeds all back, keeps the first targetGroups mixed ones and records the surplus', async () => {
    const base = smallRftConfig('refill', {
      heldout: undefined,
      experienceOps: [
        { op: 'invalid_reward' },
        { op: 'reward_std_filter', params: { refill: true, targetGroups: TARGET } },
        { op: 'grpo' },
      ],
      lifecycle: { mode: 'sync', steps: STEPS, checkpointEvery: STEPS },
    });
    // Temperature 2 makes most groups mixed, so some steps have more than targetGroups of them.
    const config: RftConfig = {
      ...base,
      explorer: { ...base.explorer, batchTasks: BATCH, repeat: REPEAT, extraGroups: EXTRA, temperature: 2 },
    };
    const asked: number[] = [];
    const fedBack: number[] = [];
    const mixed: string[][] = [];
    const hooks = new Hooks<RftEvents>()
      .on('beforeSelect', (p) => void asked.push(p.batchTasks))
      .on('afterFeedback', (p) => void fedBack.push(p.groups))
      .on('afterRollout', (p) => void mixed.push(mixedGroups(p.rows)));

    const { result, seen } = await runLoop(config, placeIn(dir, 'refill'), {
      hooks,
      inspect: async (parts, _r, rejected) => ({
        buffered: await parts.buffer.count(),
        rejected: await rejected.read({ runId: 'refill' }),
      }),
    });
    const h = result.history;

    // Every step selects, rolls out and feeds back batchTasks + extraGroups groups.
    expect(asked).toEqual([8, 8, 8, 8]);
    expect(fedBack).toEqual([8, 8, 8, 8]);
    expect(h.map((r) => [r.tasks, r.rollouts])).toEqual([
      [8, 32],
      [8, 32],
      [8, 32],
      [8, 32],
    ]);
    expect(result.counters.rollouts).toBe(STEPS * (BATCH + EXTRA) * REPEAT);

    // This seed: 4, 3, 6 and 4 mixed groups; the third step is the one with a surplus (2 groups),
    // the second falls one group short of the target.
    expect(mixed.map((m) => m.length)).toEqual([4, 3, 6, 4]);
    const kept = mixed.map((m) => Math.min(m.length, TARGET) * REPEAT);
    expect(kept).toEqual([16, 12, 16, 16]);
    expect(h.map((r) => r.experiencesKept)).toEqual(kept);
    expect(h.map((r) => r.experiencesDropped)).toEqual(kept.map((k) => 32 - k));
    expect(seen!.buffered).toBe(16 + 12 + 16 + 16);

    // The surplus: the mixed groups after the first targetGroups, every rollout of each, with the reason.
    const surplusGroups = mixed.flatMap((m) => m.slice(TARGET));
    expect(surplusGroups).toHaveLength(2);
    const surplusRows = seen!.rejected.filter((r) => r.reason === SURPLUS_REASON);
    expect(surplusRows.map((r) => r.step)).toEqual(Array(2 * REPEAT).fill('exp:reward_std_filter'));
    expect(surplusRows.map((r) => r.rowId).sort()).toEqual(
      surplusGroups.flatMap((g) => Array.from({ length: REPEAT }, (_, i) => `${g}#${i}`)).sort(),
    );
    // Everything not kept is in `rejected` (equal-reward groups and the surplus), nothing else.
    expect(seen!.rejected).toHaveLength(h.reduce((a, r) => a + r.experiencesDropped, 0));
  });
});
