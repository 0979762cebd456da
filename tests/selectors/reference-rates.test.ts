import { describe, expect, it } from 'vitest';
import { BotsSelector } from '../../src/selectors/bots.ts';
import { SharedAbilitySelector } from '../../src/selectors/shared-ability.ts';

describe('reference pass rates must be fractions', () => {
  it('rejects a value outside [0, 1] at init and at addTasks, naming task and column, and changes nothing', () => {
    const view = (ids: string[], weak: number[], strong: number[]) => ({
      ids,
      features: { weak_pass_rate: Float64Array.from(weak), strong_pass_rate: Float64Array.from(strong) },
    });
    expect(() => new BotsSelector(1).init(view(['a', 'b'], [0.2, 35], [0.5, 0.9]))).toThrow(
      /task 'b' has weak_pass_rate = 35, outside \[0, 1\].*percentage/,
    );
    expect(() => new BotsSelector(1).init(view(['a'], [0.2], [Number.POSITIVE_INFINITY]))).toThrow(
      /task 'a' has strong_pass_rate = Infinity/,
    );
    // NaN is "no reference": accepted, and that task is stored one by one.
    const s = new BotsSelector(1);
    s.init(view(['a', 'b'], [0.2, Number.NaN], [0.5, 0.9]));
    expect(s.explicitTasks).toBe(1);
    const before = JSON.stringify(s.state());
    expect(() => s.addTasks(view(['c', 'd'], [0.1, 0.3], [-0.2, 0.4]))).toThrow(
      /task 'c' has strong_pass_rate = -0.2/,
    );
    expect(JSON.stringify(s.state())).toBe(before);
    expect(s.select(2).every((id) => id === 'a' || id === 'b')).toBe(true);
  });

  it('shared_ability rejects them too', () => {
    const s = new SharedAbilitySelector(1);
    expect(() =>
      s.init({
        ids: ['a', 'b'],
        features: {
          weak_pass_rate: Float64Array.from([0.2, 0.3]),
          strong_pass_rate: Float64Array.from([0.5, 90]),
        },
      }),
    ).toThrow(/shared_ability: task 'b' has strong_pass_rate = 90, outside \[0, 1\]/);
  });
});
