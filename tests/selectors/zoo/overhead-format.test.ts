// The overhead table of `bench selection`: ratios to random measured in the same run, and the
// issue's 5 ms verdict printed only for a pool of 10⁶ tasks.
import { describe, expect, it } from 'vitest';
import { formatSelectionTable } from '../../../bench/selection/format.ts';

const row = (selector: string, medianMs: number, tasks: number) => ({
  selector,
  tasks,
  medianMs,
  initMs: 100,
  stateBytesPerTask: 16,
});

describe('bench selection: the overhead table', () => {
  it('prints × random and the worst selector against the 5 ms target at 10⁶ tasks', () => {
    const text = formatSelectionTable({
      scenarios: [],
      acceptance: [],
      overhead: [row('random', 0.05, 1_000_000), row('bots', 1.5, 1_000_000), row('slow', 6.25, 1_000_000)],
      elapsedMs: 1000,
    });
    expect(text).toMatch(/\| bots +\| 1\.50 +\| 30\.0 +\|/);
    expect(text).toMatch(/\| slow +\| 6\.25 +\| 125\.0 +\|/);
    expect(text).toContain('target (issue #15): ≤ 5 ms a step → worst 6.25 ms (slow): NOT met');
  });

  it('gives no verdict for a smaller pool', () => {
    const text = formatSelectionTable({
      scenarios: [],
      acceptance: [],
      overhead: [row('random', 0.05, 2000), row('bots', 0.2, 2000)],
      elapsedMs: 1000,
    });
    expect(text).toMatch(/\| bots +\| 0\.20 +\| 4\.0 +\|/);
    expect(text).not.toContain('target (issue #15)');
  });
});
