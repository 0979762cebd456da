import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dotsReplaySampler } from '../../src/buffer/samplers/dots-replay.ts';
import { exgrpoSampler } from '../../src/buffer/samplers/exgrpo.ts';
import { repoSampler } from '../../src/buffer/samplers/repo.ts';
import type { CandidateView, RowFacts, SamplerDefinition } from '../../src/buffer/samplers/sampler.ts';
import { Rng } from '../../src/core/rng.ts';

/**
 * Invariants of the replay methods' selection on arbitrary indexes (issue 42), through a
 * hand-built CandidateView: no slot twice, never more than n, only eligible slots, fresh rows
 * (never delivered) before replayed ones, and each method's own rule on what it replays.
 */
interface Row {
  task: number;
  group: number;
  reward: number;
  entropy: number;
  uses: number;
  eligible: boolean;
  advantage: number;
}

const rowArb = fc.record({
  task: fc.integer({ min: 0, max: 3 }),
  group: fc.integer({ min: 0, max: 5 }),
  reward: fc.constantFrom(0, 1),
  entropy: fc.double({ min: 0, max: 3, noNaN: true }),
  uses: fc.integer({ min: 0, max: 2 }),
  eligible: fc.boolean(),
  advantage: fc.constantFrom(-1, 0, 0.5),
});

function view(rows: Row[]): CandidateView {
  const facts = (s: number): RowFacts => ({
    id: `r${s}`,
    seq: s,
    modelVersion: 0,
    advantage: rows[s]!.advantage,
    reward: rows[s]!.reward,
    taskId: `t${rows[s]!.task}`,
    taskset: 'x',
    groupId: `t${rows[s]!.task}g${rows[s]!.group}`,
    exploreStep: 0,
    entropy: rows[s]!.entropy,
  });
  return {
    start: 0,
    end: rows.length,
    seq: Float64Array.from(rows, (_, s) => s),
    priority: new Float64Array(rows.length),
    group: Int32Array.from(rows, (r) => r.task * 10 + r.group),
    eligible: (s) => rows[s]!.eligible,
    facts,
    uses: (s) => rows[s]!.uses,
    size: rows.length,
    alive: () => true,
  };
}

function select(def: SamplerDefinition, params: unknown, rows: Row[], n: number, seed: number): number[] {
  const sampler = def.create(def.params.parse(params), {
    seed: 0,
    keys: { priority: new Float64Array(rows.length) } as never,
  });
  return sampler.select(view(rows), n, { keepGroups: false, rng: new Rng(seed) }).slots;
}

function common(rows: Row[], n: number, slots: number[]): void {
  expect(new Set(slots).size).toBe(slots.length);
  expect(slots.length).toBeLessThanOrEqual(n);
  for (const s of slots) expect(rows[s]!.eligible).toBe(true);
}

const arbs = [fc.array(rowArb, { maxLength: 40 }), fc.integer({ min: 0, max: 16 }), fc.nat()] as const;

describe('replay methods: selection invariants', () => {
  it('exgrpo: fresh first (oldest first); replays only correct past rows, one per task', () => {
    fc.assert(
      fc.property(...arbs, (rows, n, seed) => {
        const slots = select(exgrpoSampler, { bucketStd: 1 }, rows, n, seed);
        common(rows, n, slots);
        const replay = slots.filter((s) => rows[s]!.uses > 0);
        const fresh = slots.filter((s) => rows[s]!.uses === 0);
        expect(slots.slice(0, fresh.length)).toEqual(fresh);
        expect([...fresh].sort((a, b) => a - b)).toEqual(fresh);
        for (const s of replay) expect(rows[s]!.reward).toBe(1);
        expect(new Set(replay.map((s) => rows[s]!.task)).size).toBe(replay.length);
      }),
    );
  });

  it('repo: whole fresh groups, each followed by past rows of its own task', () => {
    fc.assert(
      fc.property(
        ...arbs,
        fc.constantFrom('recency', 'reward', 'variance', 'entropy', 'random'),
        (rows, n, seed, strategy) => {
          const slots = select(repoSampler, { strategy, offPolicyPerPrompt: 2 }, rows, n, seed);
          common(rows, n, slots);
          let task = -1;
          for (const s of slots) {
            if (rows[s]!.uses === 0) task = rows[s]!.task;
            else expect(rows[s]!.task).toBe(task);
          }
        },
      ),
    );
  });

  it('dots_replay: replays only past rows with a non-zero advantage from the newest `window` rows', () => {
    fc.assert(
      fc.property(...arbs, fc.integer({ min: 1, max: 20 }), (rows, n, seed, window) => {
        const slots = select(dotsReplaySampler, { window }, rows, n, seed);
        common(rows, n, slots);
        for (const s of slots.filter((x) => rows[x]!.uses > 0)) {
          expect(s).toBeGreaterThanOrEqual(rows.length - window);
          expect(rows[s]!.advantage).not.toBe(0);
        }
        const fresh = rows.filter((r) => r.eligible && r.uses === 0).length;
        // Never short while a pool has rows left.
        const pool = rows.filter(
          (r, s) => r.eligible && r.uses > 0 && r.advantage !== 0 && s >= rows.length - window,
        ).length;
        expect(slots.length).toBe(Math.min(n, fresh + pool));
      }),
    );
  });
});
