import { describe, expect, it } from 'vitest';
import { counts, duration, timeLines } from '../../tools/test-summary.ts';
import { measureSlowdown } from '../helpers/slowdown.ts';

describe('tools/test-summary.ts: the closing lines of npm test', () => {
  it('durations read as seconds under a minute, minutes and seconds above', () => {
    expect([
      duration(0),
      duration(8.04),
      duration(59.94),
      duration(60),
      duration(754.2),
      duration(3599.6),
    ]).toEqual(['0.0s', '8.0s', '59.9s', '1m00s', '12m34s', '60m00s']);
  });

  it('phases are timed from one stamp to the next, the install before npm test named, installs listed', () => {
    const phases = [
      ['start', '1000'],
      ['script', '1040.5'],
      ['typecheck', '1060.5'],
      ['lint', '1063.5'],
      ['tests-early', '1483.5'],
      ['deps-wait', '1483.5'],
      ['tests-late', '1603.5'],
    ];
    const deps = [
      ['python', '1040.6', '1160.6', '0'],
      ['browser', '1040.6', '1041.6', '0'],
      ['queue', '1041.6', '1042.6', '1'],
    ];
    expect(timeLines(phases, deps, 1605)).toEqual([
      'Time: 10m05s in all: before npm test (npm install) 40.5s, typecheck 20.0s, lint 3.0s, tests without installs 7m00s, waiting for installs 0.0s, tests that need them 2m00s',
      '  background installs: python 2m00s, browser 1.0s, queue 1.0s (exit 1)',
    ]);
    // Started by hand (no earlier stamp): no install line before npm test.
    expect(
      timeLines(
        [
          ['start', '10'],
          ['script', '10.2'],
          ['typecheck', '30.2'],
        ],
        [],
        31,
      )[0],
    ).toBe('Time: 21.0s in all: typecheck 20.0s');
    expect(timeLines([], [], 5)).toEqual([]);
  });

  it('counts add both passes; a file that failed to load counts as one failure', () => {
    const pass1 = {
      numPassedTests: 10,
      numFailedTests: 1,
      numPendingTests: 2,
      numTodoTests: 1,
      testResults: [
        { name: 'a', status: 'failed', assertionResults: [{ status: 'failed' }, { status: 'passed' }] },
        { name: 'b', status: 'failed', assertionResults: [] },
        { name: 'c', status: 'passed', assertionResults: [{ status: 'passed' }] },
      ],
    };
    const pass2 = {
      numPassedTests: 5,
      numFailedTests: 0,
      numPendingTests: 0,
      numTodoTests: 0,
      testResults: [],
    };
    expect(counts([pass1, pass2])).toEqual({ passed: 15, failed: 2, skipped: 3 });
    expect(counts([])).toEqual({ passed: 0, failed: 0, skipped: 0 });
  });
});

describe('tests/helpers/slowdown.ts', () => {
  it('the measured factor lies between 1 and 6, in tenths', () => {
    const f = measureSlowdown();
    expect(f).toBeGreaterThanOrEqual(1);
    expect(f).toBeLessThanOrEqual(6);
    expect(Math.round(f * 10)).toBe(f * 10);
  });
});
