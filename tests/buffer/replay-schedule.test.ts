import { afterAll, describe, expect, it } from 'vitest';
import { ExperienceBuffer } from '../../src/buffer/experience-buffer.ts';
import type { ExperienceBufferConfigInput } from '../../src/buffer/experience-config.ts';
import {
  ReplayScheduleSchema,
  replayScale,
  scheduledReplay,
} from '../../src/buffer/samplers/replay-schedule.ts';
import type { Experience } from '../../src/core/experience.ts';
import { tempDir } from '../helpers/tmp.ts';
import { exp, freshDb } from './experience-fixtures/make.ts';

/**
 * Replay schedules (delayed start, linear ramp, stop and linear decay by train step) on the replaying samplers: the scale
 * and cap by hand, then each sampler on a hand-computed buffer (exact ids and order), and a
 * kill-and-resume run with a ramp that re-draws the same batch.
 */
const root = tempDir('winnow-replay-schedule-');
const open: ExperienceBuffer[] = [];
afterAll(async () => {
  for (const b of open) await b.close().catch(() => undefined);
});

async function openBuffer(
  db: string,
  sampler: ExperienceBufferConfigInput['sampler'],
): Promise<ExperienceBuffer> {
  const b = await ExperienceBuffer.open(db, { sampler, seed: 7 });
  open.push(b);
  return b;
}

const ids = (r: { experiences: Experience[] }) => r.experiences.map((e) => e.id);

/** Two rollouts `<p>0`, `<p>1` of task `<p>` from model version `v` (rewards 1, 0; advantages ±1). */
const pair = (p: string, v: number): Experience[] =>
  [1, 0].map((r, i) =>
    exp(`${p}${i}`, { taskId: p, groupId: p, modelVersion: v, reward: r, advantage: r ? 1 : -1 }),
  );

describe('replay schedule: scale and cap', () => {
  it('scale: 0 before startStep, then linear over rampSteps, then 1', () => {
    const s = ReplayScheduleSchema.parse({ startStep: 3, rampSteps: 4 });
    expect([0, 2, 3, 4, 5, 6, 7, 20].map((t) => replayScale(s, t))).toEqual([0, 0, 0, 0.25, 0.5, 0.75, 1, 1]);
    const jump = ReplayScheduleSchema.parse({ startStep: 2 });
    expect([1, 2, 3].map((t) => replayScale(jump, t))).toEqual([0, 1, 1]);
    expect(replayScale(ReplayScheduleSchema.parse(undefined), 0)).toBe(1);
    expect(replayScale(s, undefined)).toBe(1);
  });

  it('cap: round(n × share × scale) while ramping, lifted (n) at full scale', () => {
    const s = ReplayScheduleSchema.parse({ startStep: 0, rampSteps: 4 });
    expect(scheduledReplay(s, 0, 16, 0.5)).toEqual({ target: 0, cap: 0 });
    expect(scheduledReplay(s, 1, 16, 0.5)).toEqual({ target: 2, cap: 2 });
    expect(scheduledReplay(s, 3, 16, 0.5)).toEqual({ target: 6, cap: 6 });
    expect(scheduledReplay(s, 4, 16, 0.5)).toEqual({ target: 8, cap: 16 });
    expect(scheduledReplay(s, 2, 10)).toEqual({ target: 5, cap: 5 });
  });

  it('scale with a stop: 1 until stopStep, 0 from it on; with decaySteps a linear fall to 0 at stopStep', () => {
    const stop = ReplayScheduleSchema.parse({ stopStep: 5 });
    expect([1, 2, 4, 5, 6, 30].map((t) => replayScale(stop, t))).toEqual([1, 1, 1, 0, 0, 0]);
    const anneal = ReplayScheduleSchema.parse({ stopStep: 12, decaySteps: 12 });
    expect([0, 1, 3, 6, 9, 11, 12, 24].map((t) => replayScale(anneal, t))).toEqual([
      1,
      11 / 12,
      0.75,
      0.5,
      0.25,
      1 / 12,
      0,
      0,
    ]);
    // up and down together: min of the ramp from step 2 and the decay to step 10
    const both = ReplayScheduleSchema.parse({ startStep: 2, rampSteps: 4, stopStep: 10, decaySteps: 4 });
    expect([1, 2, 4, 6, 7, 8, 9, 10, 11].map((t) => replayScale(both, t))).toEqual([
      0, 0, 0.5, 1, 0.75, 0.5, 0.25, 0, 0,
    ]);
    // overlapping ramp and decay: the smaller of the two
    const tent = ReplayScheduleSchema.parse({ rampSteps: 4, stopStep: 4, decaySteps: 4 });
    expect([0, 1, 2, 3, 4].map((t) => replayScale(tent, t))).toEqual([0, 0.25, 0.5, 0.25, 0]);
    expect(ReplayScheduleSchema.parse(undefined)).toEqual({ startStep: 0, rampSteps: 0, decaySteps: 0 });
  });

  it('cap while decaying: round(n × share × scale); full (n) before the decay begins', () => {
    const s = ReplayScheduleSchema.parse({ stopStep: 8, decaySteps: 4 });
    expect(scheduledReplay(s, 3, 16, 0.5)).toEqual({ target: 8, cap: 16 });
    expect(scheduledReplay(s, 4, 16, 0.5)).toEqual({ target: 8, cap: 16 });
    expect(scheduledReplay(s, 6, 16, 0.5)).toEqual({ target: 4, cap: 4 });
    expect(scheduledReplay(s, 7, 16)).toEqual({ target: 4, cap: 4 });
    expect(scheduledReplay(s, 8, 16, 0.5)).toEqual({ target: 0, cap: 0 });
  });

  it('rejects a decay without a stop, and a stop not after the start, naming the key', () => {
    expect(() => ReplayScheduleSchema.parse({ decaySteps: 3 })).toThrow(/decaySteps needs a stopStep/);
    expect(() => ReplayScheduleSchema.parse({ startStep: 5, stopStep: 5 })).toThrow(
      /stopStep 5 must be after startStep 5/,
    );
    expect(() => ReplayScheduleSchema.parse({ stopStep: 0 })).toThrow(/stopStep/);
  });

  it('rejects a negative or fractional step count, naming the key', () => {
    expect(() => ReplayScheduleSchema.parse({ startStep: -1 })).toThrow(/startStep/);
    expect(() => ReplayScheduleSchema.parse({ rampSteps: 1.5 })).toThrow(/rampSteps/);
  });
});

/**
 * version_priority with `replaySchedule`: at steps 1…, write the pair of a new task (a, b, c…) from
 * version step − 1, sample 6 and ack; each step's ids.
 */
async function versionPrioritySteps(replaySchedule: object, count: number): Promise<string[][]> {
  const buf = await openBuffer(freshDb(root), {
    type: 'version_priority',
    params: { decay: 0.5, maxUses: 3, replaySchedule },
  });
  const steps: string[][] = [];
  for (let step = 1; step <= count; step++) {
    await buf.write(pair(String.fromCharCode(96 + step), step - 1));
    steps.push(ids(await buf.sample(6, { step })));
    await buf.ack(step);
  }
  return steps;
}

describe('version_priority with a schedule', () => {
  it('no replay before the start, a capped share on the ramp, the plain sampler after it', async () => {
    const steps = await versionPrioritySteps({ startStep: 3, rampSteps: 2 }, 5);
    expect(steps).toEqual([
      ['a0', 'a1'], // scale 0: fresh only (fifo)
      ['b0', 'b1'],
      ['c0', 'c1'], // step 3 = startStep: scale 0
      // scale 0.5: the plain choice of six is d0 d1 (priority 3), c0 c1 (2 − 0.5), b0 b1 (1 − 0.5):
      // its four past rows are capped at round(4 × 0.5) = 2, the first in its order
      ['d0', 'd1', 'c0', 'c1'],
      // full scale: the plain sampler, six highest: e 4, d 3 − 0.5, c 2 − 1 (b0 b1 at 1 − 0.5, a −0.5)
      ['e0', 'e1', 'd0', 'd1', 'c0', 'c1'],
    ]);
  });
});

describe('version_priority with a stop and decay', () => {
  it('the plain sampler before the decay, a capped share on it, fresh rows only from stopStep on', async () => {
    const steps = await versionPrioritySteps({ stopStep: 5, decaySteps: 2 }, 6);
    expect(steps).toEqual([
      ['a0', 'a1'],
      ['b0', 'b1', 'a0', 'a1'], // scale 1: b 1, a 0 − 0.5
      ['c0', 'c1', 'b0', 'b1', 'a0', 'a1'], // scale 1 (decay starts after step 3): c 2, b 0.5, a −1
      // scale 0.5: the plain choice is d (3), c (2 − 0.5), b (1 − 1); a is used up (3 uses): its
      // four past rows capped at round(4 × 0.5) = 2, the first in its order
      ['d0', 'd1', 'c0', 'c1'],
      ['e0', 'e1'], // stopStep: scale 0, fifo
      ['f0', 'f1'],
    ]);
  });
});

describe('exgrpo and dots_replay with a schedule', () => {
  it('exgrpo: fresh only before startStep, then its replay at the full share', async () => {
    const buf = await openBuffer(freshDb(root), {
      type: 'exgrpo',
      params: { accuracyWindow: 8, bucketStd: 0, replaySchedule: { startStep: 3 } },
    });
    const four = (p: string, rewards: number[], h: number[]) =>
      rewards.map((r, i) =>
        exp(`${p}${i}`, {
          taskId: p,
          groupId: p,
          reward: r,
          advantage: 1,
          logprobs: [-h[i]!, -h[i]!, -h[i]!],
        }),
      );
    await buf.write([
      ...four('m', [1, 1, 0, 0], [0.9, 0.3, 1, 1]),
      ...four('l', [1, 0, 0, 0], [0.5, 1, 1, 1]),
    ]);
    expect(ids(await buf.sample(8, { step: 1 }))).toEqual(['m0', 'm1', 'm2', 'm3', 'l0', 'l1', 'l2', 'l3']);
    await buf.ack(1);
    await buf.write(four('g', [1, 0, 1, 0], [0.7, 1, 0.4, 1]));
    // Step 2 < startStep: the four fresh rows only (unscheduled: four replays beside them).
    expect(ids(await buf.sample(8, { step: 2 }))).toEqual(['g0', 'g1', 'g2', 'g3']);
    await buf.ack(2);
    await buf.write(four('u', [0, 0, 0, 0], [1, 1, 1, 1]));
    // Step 3: full share, 4 of 8 replayed: medium g (newest question: g2, lowest entropy), medium m
    // (m1), then low l (l0); u is unsolved and never replayed.
    expect(ids(await buf.sample(8, { step: 3 }))).toEqual(['u0', 'u1', 'u2', 'u3', 'g2', 'm1', 'l0']);
  });

  it('dots_replay: fresh only before startStep; unscheduled, the same call replays', async () => {
    const rows = ['x0', 'x1', 'x2'].map((id) => exp(id, { advantage: 1 }));
    const fresh = [exp('y0', { advantage: 1 }), exp('y1', { advantage: 1 })];
    const second = async (schedule: object) => {
      const buf = await openBuffer(freshDb(root), {
        type: 'dots_replay',
        params: { window: 3, replaySchedule: schedule },
      });
      await buf.write(rows);
      expect(ids(await buf.sample(3, { step: 1 }))).toEqual(['x0', 'x1', 'x2']);
      await buf.ack(1);
      await buf.write(fresh);
      return ids(await buf.sample(4, { step: 2 }));
    };
    // window: x2 y0 y1 → the pool is {x2}
    expect(await second({ startStep: 3 })).toEqual(['y0', 'y1']);
    expect(await second({})).toEqual(['y0', 'y1', 'x2']);
  });
});

describe('kill and resume with a ramp', () => {
  it('the step re-drawn after recover(1) is the batch the killed process drew', async () => {
    const sampler = {
      type: 'dots_replay',
      params: { window: 16, replaySchedule: { startStep: 1, rampSteps: 2 } },
    } as const;
    const db = freshDb(root);
    let buf = await openBuffer(db, sampler);
    await buf.write(['a', 'b', 'c', 'd', 'e', 'f'].map((id) => exp(id, { advantage: 1 })));
    expect(ids(await buf.sample(6, { step: 1 }))).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
    await buf.ack(1);
    await buf.write([exp('g', { advantage: 1 }), exp('h', { advantage: 1 })]);
    const killed = await buf.sample(8, { step: 2 });
    // scale 0.5: cap round(8 × 0.5 × 0.5) = 2 replayed rows beside the two fresh ones
    expect(killed.experiences.map((e) => e.useCount)).toEqual([1, 1, 2, 2]);
    buf = await openBuffer(db, sampler);
    await buf.recover(1);
    const again = await buf.sample(8, { step: 2 });
    expect(ids(again)).toEqual(ids(killed));
    expect(again.experiences.map((e) => e.useCount)).toEqual([1, 1, 2, 2]);
  });
});
