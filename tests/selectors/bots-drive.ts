// Shared by the BOTS tests: a group of 16 rewards with mean r, and the save → load → continue check.
import { expect } from 'vitest';
import type { BotsSelector } from '../../src/selectors/bots.ts';

/** 16 binary rewards whose mean is r (rounded up to a sixteenth). */
export const group = (r: number): number[] => Array.from({ length: 16 }, (_, i) => (i < r * 16 ? 1 : 0));

/** `calls` rounds of select(2) + feedback, two rounds per step, the mean reward cycling 0, ¼, ½, … through `cycle` values. */
function drive(s: BotsSelector, from: number, to: number, cycle: number): string[][] {
  const out: string[][] = [];
  for (let call = from; call < to; call++) {
    const ids = s.select(2);
    out.push(ids);
    s.feedback(
      ids.map((taskId, i) => ({ taskId, rewards: group(((call + i) % cycle) / 4) })),
      { step: Math.floor(call / 2) },
    );
  }
  return out;
}

/**
 * A selector saved after half of `calls` rounds, loaded into a fresh one and driven on makes the
 * same selections and ends in the same state as one driven through all of them. Returns the
 * selector whose state was saved.
 */
export function expectResumesExactly(make: () => BotsSelector, calls: number, cycle: number): BotsSelector {
  const whole = make();
  const expected = drive(whole, 0, calls, cycle);
  const first = make();
  const head = drive(first, 0, calls / 2, cycle);
  const second = make();
  second.load(JSON.parse(JSON.stringify(first.state())));
  expect([...head, ...drive(second, calls / 2, calls, cycle)]).toEqual(expected);
  expect(JSON.stringify(second.state())).toBe(JSON.stringify(whole.state()));
  return first;
}
