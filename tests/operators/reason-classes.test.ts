import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ReasonClasses } from '../../src/operators/reason-classes.ts';
import { reasonClass } from '../../src/operators/step-metrics.ts';

describe('ReasonClasses', () => {
  it('answers what reasonClass answers, for repeated and unique reasons, past its limit', () => {
    const reason = fc.oneof(
      fc.constantFrom('too few words: 2 < minWords 5', "prompt: missing column 'q' (the row has: a, b)"),
      fc.integer({ min: 0, max: 50 }).map((i) => `duplicate of t_${'ab12cd'}${i} (similarity 0.9${i})`),
      fc.string({ maxLength: 20 }),
    );
    fc.assert(
      fc.property(fc.array(reason, { maxLength: 60 }), (reasons) => {
        const memo = new ReasonClasses(8);
        for (const r of [...reasons, ...reasons]) expect(memo.of(r)).toBe(reasonClass(r));
      }),
      { numRuns: 300, seed: 15 },
    );
    expect(new ReasonClasses().of('too few words: 2 < minWords 5')).toBe('too few words: # < minWords #');
  });

  it('folds standalone numbers only: digits inside a name stay (gsm8k, qwen3-0.6b, a1)', () => {
    expect(reasonClass('mode gsm8k: 3 of 4 rollouts agree (0.75 > 0.5).')).toBe(
      'mode gsm8k: # of # rollouts agree (# > #).',
    );
    expect(reasonClass('model qwen3 said -2.5e-3 at step 12')).toBe('model qwen3 said # at step #');
    expect(reasonClass('too few words: 2 < minWords 5')).toBe('too few words: # < minWords #');
  });
});
