import { afterAll, describe, expect, it } from 'vitest';
import { stepUpdates } from '../../bench/learning-curriculum/learner.ts';
import { ReplayBufferSource } from '../../bench/replay/buffer-source.ts';
import { annealSchedule, REPLAY_METHODS, type ReplayMethod } from '../../bench/replay/methods.ts';
import type { Experience } from '../../src/core/experience.ts';
import { exp, freshDb } from '../buffer/experience-fixtures/make.ts';
import { tempDir } from '../helpers/tmp.ts';

/**
 * `replayUpdates` (issue 42): a step's own update trains exactly its fresh rows (fifo's batch), then
 * k extra updates each train past rows chosen by the method's sampler. Hand-computed buffers: the
 * exact updates per step and the rows (ids, use counts) each trains on.
 */
const root = tempDir('winnow-replay-updates-');
const sources: ReplayBufferSource[] = [];
afterAll(async () => {
  for (const s of sources) await s.close().catch(() => undefined);
});

const method = (name: string): ReplayMethod => REPLAY_METHODS.find((m) => m.name === name)!;

/** Two rows of step `t` (model version t), ids `<p>0`, `<p>1`. */
const pair = (p: string, t: number): Experience[] =>
  [0, 1].map((i) =>
    exp(`${p}${i}`, { taskId: `T${p}`, groupId: p, modelVersion: t, reward: i, advantage: 0.5 }),
  );

/** Runs steps 1…n of fresh batches through the source as the learner does; the batches each update trained, per step. */
async function run(m: ReplayMethod, fresh: Experience[][]): Promise<string[][][]> {
  const source = await ReplayBufferSource.open(freshDb(root), m, 7, fresh.length, 0.003);
  sources.push(source);
  const steps: string[][][] = [];
  for (const [i, rows] of fresh.entries()) {
    const step = i + 1;
    const updates: string[][] = [];
    const trainOn = await source.choose(rows, step);
    await stepUpdates(trainOn, step, source, async (batch) => {
      updates.push(batch.map((e) => `${e.id}×${e.useCount}`));
    });
    steps.push(updates);
  }
  return steps;
}

describe('replayUpdates', () => {
  it('version_priority_updates: fifo update, then one on the highest model_version − 0.5·uses past rows', async () => {
    const m = method('version_priority_updates');
    expect(m.replayUpdates).toBe(1);
    const steps = await run(m, [pair('a', 1), pair('b', 2), pair('c', 3), pair('d', 4)]);
    expect(steps).toEqual([
      [['a0×1', 'a1×1']], // nothing past yet: one update
      [
        ['b0×1', 'b1×1'],
        ['a0×2', 'a1×2'],
      ], // a: 1 − 0.5 = 0.5
      [
        ['c0×1', 'c1×1'],
        ['b0×2', 'b1×2'],
      ], // b: 2 − 0.5 = 1.5 beats a: 1 − 1 = 0
      [
        ['d0×1', 'd1×1'],
        ['c0×2', 'c1×2'],
      ], // c: 2.5 beats b: 1, a: 0
    ]);
  });

  it('k = 2: a second replay batch of the next past rows; a row is used at most once a step and 3 times in all', async () => {
    const m = { ...method('version_priority_updates'), replayUpdates: 2 };
    const steps = await run(m, [pair('a', 1), pair('b', 2), pair('c', 3), pair('d', 4)]);
    expect(steps).toEqual([
      [['a0×1', 'a1×1']],
      [
        ['b0×1', 'b1×1'],
        ['a0×2', 'a1×2'],
      ], // a leased at this step: the second batch is empty, no update
      [
        ['c0×1', 'c1×1'],
        ['b0×2', 'b1×2'],
        ['a0×3', 'a1×3'],
      ],
      [
        ['d0×1', 'd1×1'],
        ['c0×2', 'c1×2'],
        ['b0×3', 'b1×3'],
      ], // a reached maxUses 3
    ]);
  });

  it("exgrpo_updates: the step's own update is exactly the fresh rows, the extra one ExGRPO's replay pick", async () => {
    // Each task 2 of 4 correct (medium); the lowest-entropy correct rollouts: a2 (0.3) and b1 (0.2).
    const h = (id: string, task: string, reward: number, e: number) =>
      exp(id, {
        taskId: task,
        groupId: task,
        reward,
        advantage: 0.5,
        modelVersion: 1,
        logprobs: [-e, -e, -e],
      });
    const step1 = [
      h('a0', 'A', 1, 0.5),
      h('a1', 'A', 0, 1),
      h('a2', 'A', 1, 0.3),
      h('a3', 'A', 0, 1),
      h('b0', 'B', 1, 0.9),
      h('b1', 'B', 1, 0.2),
      h('b2', 'B', 0, 1),
      h('b3', 'B', 0, 1),
    ];
    const step2 = ['g0', 'g1', 'g2', 'g3'].map((id, i) => h(id, 'G', i % 2, 1));
    const steps = await run(method('exgrpo_updates'), [step1, step2]);
    expect(steps[0]).toEqual([step1.map((e) => `${e.id}×1`)]);
    expect(steps[1]!).toHaveLength(2);
    expect(steps[1]![0]).toEqual(['g0×1', 'g1×1', 'g2×1', 'g3×1']); // plain exgrpo would mix in 2 replayed rows
    expect([...steps[1]![1]!].sort()).toEqual(['a2×2', 'b1×2']); // one trajectory per question: a short batch
  });
});

describe('fifo_lr2', () => {
  it("fifo's batches with twice the run's learning rate", async () => {
    const m = method('fifo_lr2');
    const source = await ReplayBufferSource.open(freshDb(root), m, 7, 2, 0.003);
    sources.push(source);
    expect(source.trainer).toEqual({ lr: 0.006 });
    expect(source.replayUpdates).toBe(0);
    const rows = pair('a', 1);
    expect((await source.choose(rows, 1)).map((e) => e.id)).toEqual(['a0', 'a1']);
  });
});

describe('fifo_twice', () => {
  it("a second update on the step's own fresh rows, each copy marked as a replay (use count + 1)", async () => {
    const steps = await run(method('fifo_twice'), [pair('a', 1), pair('b', 2), pair('c', 3)]);
    expect(steps).toEqual([
      [
        ['a0×1', 'a1×1'],
        ['a0×2', 'a1×2'],
      ],
      [
        ['b0×1', 'b1×1'],
        ['b0×2', 'b1×2'],
      ],
      [
        ['c0×1', 'c1×1'],
        ['c0×2', 'c1×2'],
      ],
    ]);
  });
});

describe('annealed extra updates (anneal)', () => {
  it('the three exgrpo_updates variants: exgrpo_updates with a stop or a linear decay over the planned updates', () => {
    const base = method('exgrpo_updates');
    const schedules = ['stop33', 'anneal50', 'anneal100'].map((v) => {
      const m = method(`exgrpo_updates_${v}`);
      expect({ ...m, name: base.name, description: base.description, anneal: undefined }).toEqual({
        ...base,
        anneal: undefined,
      });
      return annealSchedule(m, 24);
    });
    expect(schedules).toEqual([
      { startStep: 0, rampSteps: 0, stopStep: 9, decaySteps: 0 }, // extra updates at steps 1–8
      { startStep: 0, rampSteps: 0, stopStep: 13, decaySteps: 12 }, // (13 − t) / 12 of the batch
      { startStep: 0, rampSteps: 0, stopStep: 25, decaySteps: 24 }, // (25 − t) / 24 of the batch
    ]);
    expect(annealSchedule(base, 24)).toBeUndefined();
  });

  it("each step's extra batch is round(rows × scale(step)); none once the scale is 0", async () => {
    // 6 planned steps, decay to none at half: stopStep 4, decaySteps 3 → scale 1, 2/3, 1/3, 0, 0, 0
    const m = { ...method('version_priority_updates'), anneal: { until: 0.5, decay: true } };
    const quad = (p: string, t: number): Experience[] =>
      [0, 1, 2, 3].map((i) =>
        exp(`${p}${i}`, { taskId: `T${p}`, groupId: p, modelVersion: t, reward: i % 2, advantage: 0.5 }),
      );
    const steps = await run(
      m,
      ['a', 'b', 'c', 'd', 'e', 'f'].map((p, i) => quad(p, i + 1)),
    );
    expect(steps.map((u) => u.length)).toEqual([1, 2, 2, 1, 1, 1]);
    expect(steps[1]![1]).toEqual(['a0×2', 'a1×2', 'a2×2']); // round(4 × 2/3) = 3
    expect(steps[2]![1]).toEqual(['b0×2']); // round(4 × 1/3) = 1: b (2 − 0.5) first
    expect(steps.map((u) => u[0])).toEqual(
      ['a', 'b', 'c', 'd', 'e', 'f'].map((p) => [0, 1, 2, 3].map((i) => `${p}${i}×1`)),
    );
  });
});
