import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkExperience } from '../../src/buffer/storage/experience-check.ts';
import { DataError } from '../../src/core/errors.ts';
import { ExperienceSchema } from '../../src/core/experience.ts';
import { exp } from './experience-fixtures/make.ts';

describe('checkExperience agrees with ExperienceSchema', () => {
  it('fills the same defaults as the zod schema', () => {
    const minimal = {
      id: 'x',
      taskId: 't',
      taskset: 's',
      groupId: 'g',
      runIndex: 0,
      modelVersion: 3,
      exploreStep: 1,
      response: 'r',
      reward: Number.NaN,
    };
    expect(checkExperience(minimal, 0)).toEqual(ExperienceSchema.parse(minimal));
    const full = exp('y', { messages: [{ role: 'user', content: 'q' }], advantages: [1, 2, 3, 4] });
    expect(checkExperience(full, 0)).toEqual(ExperienceSchema.parse(full));
  });

  it('accepts exactly what the schema accepts for common mistakes', () => {
    const base = exp('z');
    const mutations: Array<Record<string, unknown>> = [
      { id: '' },
      { id: 5 },
      { taskId: undefined },
      { runIndex: -1 },
      { runIndex: 1.5 },
      { modelVersion: '3' },
      { response: undefined },
      { tokens: [1, 2.5] },
      { tokens: 'abc' },
      { actionMask: [0, 2] },
      { logprobs: ['x'] },
      { reward: '1' },
      { reward: Number.NaN },
      { truncated: 'yes' },
      { info: [] },
      { info: { a: 1 } },
      { messages: [{ role: 'robot', content: 'x' }] },
      { messages: [{ role: 'user', content: 'x' }] },
      { advantages: [1, 'a'] },
      { expert: 1 },
      { createdAt: 1_700_000_000_000 },
      { createdAt: 8.64e15 },
      { createdAt: -8.64e15 },
      { createdAt: 8.64e15 + 1 },
      { createdAt: 2 ** 60 },
      { createdAt: Number.POSITIVE_INFINITY },
      { createdAt: Number.NaN },
      // The table stores these as int32: a wider value would wrap silently.
      { modelVersion: 2 ** 31 - 1 },
      { modelVersion: 2 ** 31 },
      { runIndex: 2 ** 31 + 5 },
      { exploreStep: 2 ** 40 },
      { useCount: 2 ** 31 },
      { tokens: [1, 2 ** 31 - 1, -(2 ** 31)] },
      { tokens: [1, 2 ** 31] },
      { tokens: [-(2 ** 31) - 1] },
      { tokens: [true] },
    ];
    for (const m of mutations) {
      const row = { ...base, ...m };
      const zodOk = ExperienceSchema.safeParse(row).success;
      let ours = true;
      try {
        checkExperience(row as never, 3);
      } catch (err) {
        expect(err).toBeInstanceOf(DataError);
        ours = false;
      }
      expect([JSON.stringify(m), ours]).toEqual([JSON.stringify(m), zodOk]);
    }
  });

  it('round-trips arbitrary valid experiences unchanged (property)', () => {
    fc.assert(
      fc.property(
        fc.record({
          modelVersion: fc.nat(100),
          tokens: fc.array(fc.integer({ min: -5, max: 50_000 }), { maxLength: 8 }),
          reward: fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constant(Number.NaN)),
          truncated: fc.boolean(),
        }),
        (over) => {
          const e = exp('p', over);
          expect(checkExperience(e, 0)).toEqual(ExperienceSchema.parse(e));
        },
      ),
    );
  });

  it('names the row, the id and the field', () => {
    expect(() => checkExperience({ ...exp('q'), tokens: [1, 0.5] }, 7, 'here')).toThrow(
      'here:row 7: experience (id q): tokens[1] must be a 32-bit integer, got 0.5',
    );
    expect(() => checkExperience({ ...exp('q'), modelVersion: 2 ** 31 + 5 }, 2, 'here')).toThrow(
      'here:row 2: experience (id q): modelVersion must be a non-negative integer below 2^31, got 2147483653',
    );
  });
});
