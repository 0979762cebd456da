import { describe, expect, it } from 'vitest';
import { DataError } from '../../src/core/errors.ts';
import { type PackableExperience, packExperiences } from '../../src/tiny/pack.ts';
import { EOS_ID } from '../../src/tiny/vocab.ts';

function exp(over: Partial<PackableExperience>): PackableExperience {
  return {
    id: 'e',
    tokens: [],
    promptLength: 0,
    logprobs: [],
    actionMask: [],
    advantage: 0,
    response: '',
    truncated: false,
    ...over,
  };
}

describe('packExperiences', () => {
  it('lays out inputs, targets and per-slot values row-major with S = T − 1', () => {
    // "1+2=" → "3" EOS, and "4=" → "4" (truncated: no EOS).
    const a = exp({
      id: 'a',
      tokens: [3, 12, 4, 15, 5, EOS_ID],
      promptLength: 4,
      logprobs: [-0.5, -0.25],
      advantage: 2,
    });
    const b = exp({ id: 'b', tokens: [6, 15, 6], promptLength: 2, logprobs: [-1], advantage: -1 });
    const p = packExperiences([a, b], 'token-mean');
    expect(p.batch).toBe(2);
    expect(p.steps).toBe(5);
    expect([...p.inputs]).toEqual([3, 12, 4, 15, 5, 6, 15, 0, 0, 0]);
    expect([...p.targets]).toEqual([0, 0, 0, 5, EOS_ID, 0, 6, 0, 0, 0]);
    expect([...p.action]).toEqual([0, 0, 0, 1, 1, 0, 1, 0, 0, 0]);
    expect([...p.oldLogprob]).toEqual([0, 0, 0, -0.5, -0.25, 0, -1, 0, 0, 0]);
    expect([...p.hasOld]).toEqual([0, 0, 0, 1, 1, 0, 1, 0, 0, 0]);
    expect([...p.advantage]).toEqual([0, 0, 0, 2, 2, 0, -1, 0, 0, 0]);
    expect(p.actionTokens).toBe(3);
    expect(p.activeSequences).toBe(2);
    const third = Math.fround(1 / 3);
    expect([...p.weight]).toEqual([0, 0, 0, third, third, 0, third, 0, 0, 0]);
  });

  it('weights slots by the chosen aggregation', () => {
    const a = exp({ id: 'a', tokens: [3, 15, 4, 5, EOS_ID], promptLength: 2 });
    const b = exp({ id: 'b', tokens: [3, 15, 4], promptLength: 2 });
    const nz = (w: Float32Array) => [...w].filter((x) => x !== 0);
    expect(nz(packExperiences([a, b], 'token-mean').weight)).toEqual([0.25, 0.25, 0.25, 0.25]);
    expect(nz(packExperiences([a, b], 'seq-mean-token-mean').weight)).toEqual([
      Math.fround(1 / 6),
      Math.fround(1 / 6),
      Math.fround(1 / 6),
      0.5,
    ]);
    expect(nz(packExperiences([a, b], 'seq-mean-token-sum').weight)).toEqual([0.5, 0.5, 0.5, 0.5]);
  });

  it('accepts masks and logprobs aligned to the response or to all tokens', () => {
    const base = { id: 'a', tokens: [3, 15, 4, 5, EOS_ID], promptLength: 2 };
    const resp = packExperiences(
      [exp({ ...base, actionMask: [1, 0, 1], logprobs: [-1, -2, -3] })],
      'token-mean',
    );
    const full = packExperiences(
      [exp({ ...base, actionMask: [0, 0, 1, 0, 1], logprobs: [0, 0, -1, -2, -3] })],
      'token-mean',
    );
    expect([...resp.action]).toEqual([0, 1, 0, 1]);
    expect([...full.action]).toEqual([...resp.action]);
    expect([...full.oldLogprob]).toEqual([...resp.oldLogprob]);
    expect([...resp.oldLogprob]).toEqual([0, -1, 0, -3]);
  });

  it('reads an old all-tokens action mask and advantages into the one response layout', () => {
    const base = { id: 'a', tokens: [3, 15, 4, 5, EOS_ID], promptLength: 2 };
    const resp = packExperiences(
      [exp({ ...base, actionMask: [1, 0, 1], advantages: [1, 2, 3], logprobs: [-1, -2, -3] })],
      'token-mean',
    );
    const old = packExperiences(
      [exp({ ...base, actionMask: [0, 0, 1, 0, 1], advantages: [9, 9, 1, 2, 3], logprobs: [-1, -2, -3] })],
      'token-mean',
    );
    for (const key of ['action', 'advantage', 'oldLogprob', 'hasOld', 'weight'] as const) {
      expect([...old[key]]).toEqual([...resp[key]]);
    }
    expect([...resp.advantage]).toEqual([0, 1, 0, 3]);
    expect(() => packExperiences([exp({ ...base, id: 'm', actionMask: [1, 1] })], 'token-mean')).toThrow(
      /experience 0 \(id m\): actionMask has 2 entries; expected 3 \(one per response token\)/,
    );
  });

  it('gives expert rows SFT slots and weights each part over its own rows', () => {
    // Row a (expert, 3 action tokens), row b (not expert, 1 action token), row c (not expert, 2).
    const a = exp({
      id: 'a',
      tokens: [3, 15, 4, 5, EOS_ID],
      promptLength: 2,
      expert: true,
      advantage: Number.NaN,
    });
    const b = exp({ id: 'b', tokens: [3, 15, 4], promptLength: 2, advantage: 1, logprobs: [-0.5] });
    const c = exp({ id: 'c', tokens: [6, 15, 6, EOS_ID], promptLength: 2, advantage: -1 });
    const p = packExperiences([a, b, c], 'token-mean');
    expect(p.steps).toBe(4);
    expect([...p.action]).toEqual([0, 1, 1, 1, 0, 1, 0, 0, 0, 1, 1, 0]);
    expect([...p.expert]).toEqual([0, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0]);
    const third = Math.fround(1 / 3);
    expect([...p.sftWeight]).toEqual([0, third, third, third, 0, 0, 0, 0, 0, 0, 0, 0]);
    expect([...p.weight]).toEqual([0, 0, 0, 0, 0, third, 0, 0, 0, third, third, 0]);
    // An expert row's advantage (even NaN) and logprobs play no part.
    expect([...p.advantage]).toEqual([0, 0, 0, 0, 0, 1, 0, 0, 0, -1, -1, 0]);
    expect([...p.hasOld]).toEqual([0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0]);
    expect([p.actionTokens, p.activeSequences, p.expertTokens, p.expertSequences]).toEqual([6, 3, 3, 1]);
    const seq = packExperiences([a, b, c], 'seq-mean-token-sum');
    expect([...seq.sftWeight].filter((x) => x !== 0)).toEqual([1, 1, 1]);
    expect([...seq.weight].filter((x) => x !== 0)).toEqual([0.5, 0.5, 0.5]);
  });

  it('uses per-token advantages when given', () => {
    const p = packExperiences(
      [exp({ tokens: [3, 15, 4, EOS_ID], promptLength: 2, advantage: 9, advantages: [0.5, -0.5] })],
      'token-mean',
    );
    expect([...p.advantage]).toEqual([0, 0.5, -0.5]);
  });

  it('encodes prompt + response (+ EOS unless truncated) when tokens are absent', () => {
    const p = packExperiences(
      [
        exp({ id: 'x', prompt: '1+2=', response: '3', advantage: 1 }),
        exp({ id: 'y', prompt: '9=', response: '9', truncated: true }),
      ],
      'token-mean',
    );
    expect(p.steps).toBe(5);
    expect([...p.inputs]).toEqual([3, 12, 4, 15, 5, 11, 15, 0, 0, 0]);
    expect([...p.targets]).toEqual([0, 0, 0, 5, EOS_ID, 0, 11, 0, 0, 0]);
    expect([...p.hasOld]).toEqual(new Array(10).fill(0));
  });

  it('names the experience and the problem in its errors', () => {
    expect(() =>
      packExperiences([exp({ id: 'bad', tokens: [3, 4], promptLength: 0 })], 'token-mean'),
    ).toThrow(/experience 0 \(id bad\): promptLength 0 must be in \[1, 2\]/);
    expect(() => packExperiences([exp({ id: 'v', tokens: [3, 40], promptLength: 1 })], 'token-mean')).toThrow(
      /token id 40 is outside/,
    );
    expect(() =>
      packExperiences([exp({ id: 'l', tokens: [3, 4, 5], promptLength: 1, logprobs: [-1] })], 'token-mean'),
    ).toThrow(/experience 0 \(id l\): logprobs has 1 entries; expected 2 \(one per response token\)/);
    expect(() =>
      packExperiences([exp({ id: 'p', tokens: [3, 4], promptLength: 1, logprobs: [0.5] })], 'token-mean'),
    ).toThrow(DataError);
    expect(() =>
      packExperiences(
        [exp({ id: 'a', tokens: [3, 4], promptLength: 1, advantage: Number.NaN })],
        'token-mean',
      ),
    ).toThrow(/advantage of response token 0 is NaN/);
  });
});

describe('packExperiences: off-policy slots (issue 42)', () => {
  it('marks the policy-gradient slots of replayed rows (useCount > 1) that carry behaviour log-probs', () => {
    const fresh = exp({ id: 'f', tokens: [6, 15, 6], promptLength: 2, logprobs: [-1], useCount: 1 });
    const replayed = exp({ id: 'r', tokens: [6, 15, 7], promptLength: 2, logprobs: [-2], useCount: 3 });
    const noLogprobs = exp({ id: 'n', tokens: [6, 15, 8], promptLength: 2, useCount: 2 });
    const expert = exp({
      id: 'x',
      tokens: [6, 15, 9],
      promptLength: 2,
      logprobs: [-1],
      useCount: 2,
      expert: true,
    });
    const p = packExperiences([fresh, replayed, noLogprobs, expert], 'token-mean');
    // S = 2; the response token is slot 1 of each row. Without log-probs or as an expert row there is nothing to correct.
    expect([...p.offPolicy]).toEqual([0, 0, 0, 1, 0, 0, 0, 0]);
  });
});
