import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, DataError } from '../../src/core/errors.ts';
import type { Experience } from '../../src/core/experience.ts';
import { defaultRegistries } from '../../src/lifecycle/run/run-registries.ts';
import { DpoTrainer } from '../../src/tiny/dpo-trainer.ts';
import { TinyPolicy } from '../../src/tiny/policy.ts';
import { PolicyGradientTrainer } from '../../src/tiny/policy-gradient-trainer.ts';
import { responseLogprob, tinyRow } from './rows.ts';

let dir: string;
beforeAll(async () => {
  await TinyPolicy.create({ hidden: 8 }).then((p) => p.dispose()); // selects the backend
  dir = await mkdtemp(join(tmpdir(), 'winnow-dpo-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** One group per prompt: the right answer (reward 1) and two wrong ones (reward 0). */
const GROUPS: [prompt: string, right: string, wrong: [string, string]][] = [
  ['12+7=', '19', ['91', '18']],
  ['3*4=', '12', ['7', '13']],
  ['45-9=', '36', ['54', '3']],
  ['8+8=', '16', ['61', '88']],
];

function groupRows(step = 0): Experience[] {
  return GROUPS.flatMap(([prompt, right, wrong], g) => {
    const extra = (runIndex: number, reward: number) => ({
      groupId: `g${g}-s${step}`,
      taskId: `t${g}`,
      runIndex,
      reward,
    });
    return [
      tinyRow(`g${g}-wrong0`, prompt, wrong[0], extra(0, 0)),
      tinyRow(`g${g}-right`, prompt, right, extra(1, 1)),
      tinyRow(`g${g}-wrong1`, prompt, wrong[1], extra(2, 0)),
    ];
  });
}

/** Mean over the groups of log π(right) − log π(first wrong): the pairs the builder makes. */
function preferenceMargin(policy: TinyPolicy): number {
  const rows = groupRows();
  const byId = new Map(rows.map((e) => [e.id, e]));
  let total = 0;
  GROUPS.forEach((_, g) => {
    total +=
      responseLogprob(policy, byId.get(`g${g}-right`)!) - responseLogprob(policy, byId.get(`g${g}-wrong0`)!);
  });
  return total / GROUPS.length;
}

const SETTINGS = { lr: 1e-2, beta: 0.5 };

describe('DpoTrainer', () => {
  it("the preferred response's log-prob margin grows over training and the loss falls (seeded)", async () => {
    const policy = new TinyPolicy({ hidden: 16, initSeed: 7 });
    const trainer = new DpoTrainer(policy, SETTINGS);
    const initial = policy.getWeights();
    const before = preferenceMargin(policy);
    const losses: number[] = [];
    let last: Record<string, number> = {};
    for (let step = 0; step < 15; step++) {
      last = await trainer.step(groupRows(step));
      losses.push(last.loss!);
    }
    const after = preferenceMargin(policy);
    // Step 1: policy = reference, so z = 0 for every pair and the loss is exactly ln 2.
    expect(losses[0]).toBeCloseTo(Math.LN2, 6);
    expect(after - before).toBeGreaterThan(3); // nats, averaged over the 4 pairs
    expect(losses.at(-1)!).toBeLessThan(0.5 * Math.LN2);
    for (let i = 1; i < losses.length; i++) expect(losses[i]!).toBeLessThan(losses[i - 1]!);
    expect(last.accuracy).toBe(1);
    expect(trainer.version).toBe(15);
    // The reference stayed the weights at the start of training.
    trainer.referenceWeights().forEach((w, i) => {
      expect(Buffer.from(w.buffer).equals(Buffer.from(initial[i]!.buffer))).toBe(true);
    });
    // The reported margin is β·(Δθ − Δref) of the pairs, as measured independently (before the step).
    const ref = new TinyPolicy({ hidden: 16, initSeed: 7 });
    const want = 0.5 * (preferenceMargin(policy) - preferenceMargin(ref));
    const m = await trainer.step(groupRows(99));
    expect(m.reward_margin).toBeCloseTo(want, 3);
    for (const x of [trainer, policy, ref]) x.dispose();
  });

  it('reports the documented metrics, counts dropped groups by reason and leaks no tensors', async () => {
    const policy = new TinyPolicy({ hidden: 8, initSeed: 3 });
    const trainer = new DpoTrainer(policy, { ...SETTINGS, minMargin: 0.5 });
    const batch = [
      ...groupRows(),
      tinyRow('tie-a', '2+2=', '4', { groupId: 'tie', reward: 1 }),
      tinyRow('tie-b', '2+2=', '5', { groupId: 'tie', runIndex: 1, reward: 1 }),
      tinyRow('solo', '1+1=', '2', { groupId: 'solo', reward: 1 }),
      tinyRow('small-a', '5+5=', '10', { groupId: 'small', reward: 0.3 }),
      tinyRow('small-b', '5+5=', '11', { groupId: 'small', runIndex: 1, reward: 0 }),
    ];
    const m = await trainer.step(batch);
    expect(m).toMatchObject({
      pairs: 4,
      groups_dropped: 3,
      dropped_tie: 1,
      dropped_single_rollout: 1,
      dropped_below_margin: 1,
      dropped_invalid_reward: 0,
      dropped_mixed_tasks: 0,
      skipped: 0,
      accuracy: 0,
      reward_margin: 0,
    });
    expect(Object.keys(m).sort()).toEqual(
      [
        'accuracy',
        'dropped_below_margin',
        'dropped_invalid_reward',
        'dropped_mixed_tasks',
        'dropped_single_rollout',
        'dropped_tie',
        'grad_norm',
        'groups_dropped',
        'loss',
        'pairs',
        'reward_chosen',
        'reward_margin',
        'reward_rejected',
        'skipped',
      ].sort(),
    );
    expect(m.grad_norm).toBeGreaterThan(0);
    expect(trainer.lastDropped.map((d) => [d.groupId, d.reason])).toEqual([
      ['tie', 'tie'],
      ['solo', 'single_rollout'],
      ['small', 'below_margin'],
    ]);
    const tensors = tf.memory().numTensors;
    await trainer.step(batch);
    expect(tf.memory().numTensors).toBe(tensors);
    trainer.dispose();
    policy.dispose();
  });

  it('a batch without a pair applies no update and leaves version unchanged', async () => {
    const policy = new TinyPolicy({ hidden: 8, initSeed: 4 });
    const trainer = new DpoTrainer(policy, SETTINGS, { version: 3 });
    const w = policy.getWeights();
    const m = await trainer.step([
      tinyRow('a', '2+2=', '4', { reward: 1 }),
      tinyRow('b', '2+2=', '5', { runIndex: 1, reward: 1 }),
    ]);
    expect(m).toMatchObject({ skipped: 1, pairs: 0, groups_dropped: 1, dropped_tie: 1, loss: 0 });
    expect(trainer.version).toBe(3);
    expect(trainer.optimizerStep).toBe(0);
    policy.getWeights().forEach((x, i) => {
      expect(Buffer.from(x.buffer).equals(Buffer.from(w[i]!.buffer))).toBe(true);
    });
    trainer.dispose();
    policy.dispose();
  });

  it('resumes exactly: 2 steps + save + load + 2 steps equals 4 straight steps, bit for bit', async () => {
    const batches = [0, 1, 2, 3].map((s) => groupRows(s));
    const straight = new TinyPolicy({ hidden: 16, initSeed: 6 });
    const t1 = new DpoTrainer(straight, SETTINGS);
    const want: Record<string, number>[] = [];
    for (const b of batches) want.push(await t1.step(b));

    const first = new TinyPolicy({ hidden: 16, initSeed: 6 });
    const t2 = new DpoTrainer(first, SETTINGS);
    await t2.step(batches[0]!);
    await t2.step(batches[1]!);
    await t2.save(join(dir, 'ckpt'));
    t2.dispose();
    first.dispose();

    // A different init: load must overwrite the weights AND the reference (cloned from this init).
    const fresh = new TinyPolicy({ hidden: 16, initSeed: 99 });
    const t3 = new DpoTrainer(fresh, SETTINGS);
    await t3.load(join(dir, 'ckpt'));
    expect([t3.version, t3.optimizerStep]).toEqual([2, 2]);
    expect(await t3.step(batches[2]!)).toEqual(want[2]);
    expect(await t3.step(batches[3]!)).toEqual(want[3]);
    expect(t3.version).toBe(4);
    const got = fresh.getWeights();
    straight.getWeights().forEach((w, i) => {
      expect(Buffer.from(got[i]!.buffer).equals(Buffer.from(w.buffer))).toBe(true);
    });
    const refWant = t1.referenceWeights();
    t3.referenceWeights().forEach((w, i) => {
      expect(Buffer.from(w.buffer).equals(Buffer.from(refWant[i]!.buffer))).toBe(true);
    });
    for (const x of [t1, t3, straight, fresh]) x.dispose();
  });

  it('refuses a policy-gradient checkpoint, naming both trainers', async () => {
    const policy = new TinyPolicy({ hidden: 8, initSeed: 5 });
    const pg = new PolicyGradientTrainer(policy);
    await pg.save(join(dir, 'pg'));
    const dpo = new DpoTrainer(policy);
    await expect(dpo.load(join(dir, 'pg'))).rejects.toThrow(DataError);
    await expect(dpo.load(join(dir, 'pg'))).rejects.toThrow(
      /checkpoint was written by trainer 'policy-gradient', not 'dpo'/,
    );
    for (const x of [pg, dpo, policy]) x.dispose();
  });

  it('refuses unknown or out-of-range settings with their config path', () => {
    const policy = new TinyPolicy({ hidden: 8 });
    expect(() => new DpoTrainer(policy, { beta: 0 })).toThrow(/trainer\.beta/);
    expect(() => new DpoTrainer(policy, { minMargin: -1 })).toThrow(ConfigError);
    expect(() => new DpoTrainer(policy, { learningRate: 1 } as never)).toThrow(/trainer/);
    policy.dispose();
  });
});

describe("trainer registry entry 'dpo'", () => {
  const ctx = { baseDir: dir, runDir: dir, seed: 1, path: 'trainer' };

  it('builds a DpoTrainer on the tiny policy with parsed params', async () => {
    const def = defaultRegistries().trainers.get('dpo');
    const policy = new TinyPolicy({ hidden: 8 });
    const params = def.params.parse({ beta: 0.2, minMargin: 0.1 });
    const trainer = await def.create(params, { ...ctx, trainable: { kind: 'tiny', policy } });
    expect(trainer).toBeInstanceOf(DpoTrainer);
    expect((trainer as DpoTrainer).config).toMatchObject({ beta: 0.2, minMargin: 0.1, lr: 1e-3 });
    trainer.dispose?.();
    policy.dispose();
  });

  it('refuses a model without tiny weights with a one-line config error', async () => {
    const def = defaultRegistries().trainers.get('dpo');
    await expect(def.create(def.params.parse({}), { ...ctx, trainable: null })).rejects.toThrow(
      /trainer\.type: dpo trains the built-in tiny policy/,
    );
  });
});
