import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dotsReplaySampler } from '../../src/buffer/samplers/dots-replay.ts';
import { exgrpoSampler } from '../../src/buffer/samplers/exgrpo.ts';
import { ReplayScheduleSchema, scheduledReplay } from '../../src/buffer/samplers/replay-schedule.ts';
import type { CandidateView, RowFacts, SamplerDefinition } from '../../src/buffer/samplers/sampler.ts';
import { Rng } from '../../src/core/rng.ts';

/**
 * Replay schedules on arbitrary indexes (fast-check, through a hand-built CandidateView): before
 * the start a call delivers exactly what fifo would; on the ramp the replayed rows never exceed the
 * cap; once the ramp is done the sampler chooses exactly as without a schedule.
 */
interface Row {
  task: number;
  reward: number;
  uses: number;
  eligible: boolean;
  advantage: number;
}

const rowArb = fc.record({
  task: fc.integer({ min: 0, max: 3 }),
  reward: fc.constantFrom(0, 1),
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
    groupId: `g${s}`,
    exploreStep: 0,
    entropy: (s % 5) / 5,
  });
  return {
    start: 0,
    end: rows.length,
    seq: Float64Array.from(rows, (_, s) => s),
    priority: new Float64Array(rows.length),
    group: Int32Array.from(rows, (_, s) => s),
    eligible: (s) => rows[s]!.eligible,
    facts,
    uses: (s) => rows[s]!.uses,
    size: rows.length,
    alive: () => true,
  };
}

function select(def: SamplerDefinition, params: object, rows: Row[], n: number, seed: number, step: number) {
  const sampler = def.create(def.params.parse(params), {
    seed: 0,
    keys: { priority: new Float64Array(rows.length) } as never,
  });
  return sampler.select(view(rows), n, { keepGroups: false, rng: new Rng(seed), step }).slots;
}

const scheduleArb = fc.record({
  startStep: fc.integer({ min: 0, max: 6 }),
  rampSteps: fc.integer({ min: 0, max: 6 }),
});
const arbs = [
  fc.array(rowArb, { maxLength: 40 }),
  fc.integer({ min: 0, max: 16 }),
  fc.nat(),
  fc.integer({ min: 0, max: 14 }),
  scheduleArb,
  fc.constantFrom(0.25, 0.5, 1),
] as const;

const samplers: [string, SamplerDefinition, (share: number) => object][] = [
  ['exgrpo', exgrpoSampler, (share) => ({ bucketStd: 1, replayShare: share })],
  ['dots_replay', dotsReplaySampler, (share) => ({ window: 24, replayShare: share })],
];

describe('replay schedules: selection invariants', () => {
  for (const [name, def, paramsOf] of samplers)
    it(`${name}: fifo before the start, at most the cap on the ramp, the plain sampler after it`, () => {
      fc.assert(
        fc.property(...arbs, (rows, n, seed, step, schedule, share) => {
          const params = paramsOf(share);
          const slots = select(def, { ...params, replaySchedule: schedule }, rows, n, seed, step);
          const fresh = rows.flatMap((r, s) => (r.eligible && r.uses === 0 ? [s] : []));
          const replayed = slots.filter((s) => rows[s]!.uses > 0);
          const { cap } = scheduledReplay(ReplayScheduleSchema.parse(schedule), step, n, share);
          expect(new Set(slots).size).toBe(slots.length);
          expect(replayed.length).toBeLessThanOrEqual(cap);
          // Fresh rows are never held back by the cap: as many as fit beside the replayed ones.
          expect(slots.length - replayed.length).toBe(Math.min(fresh.length, n - replayed.length));
          if (step < schedule.startStep) expect(slots).toEqual(fresh.slice(0, n));
          if (cap >= n) expect(slots).toEqual(select(def, params, rows, n, seed, step));
        }),
      );
    });
});
