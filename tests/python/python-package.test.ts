import { describe, expect, it } from 'vitest';
import { missingPython, pythonBin } from '../helpers/python.ts';
import { runUnittest } from './unittest-runner.ts';

/**
 * The Python package (python/winnow_client) tested by its own unittest files, each against a real
 * `winnow serve` the Python test starts on 127.0.0.1 (python/tests/serve_harness.py). The TRL end
 * to end test is in trl-grpo.test.ts (its own file, so the two run on separate workers).
 */
const noPython = pythonBin() === null;
if (noPython) console.warn('NOTE: skipping the Python package tests (python/): no python3 on PATH');

describe.skipIf(noPython)('python/winnow_client against a real winnow serve', () => {
  it('client: request ids, recover(), refused requests, rewards by name, leased batches (JSON, Arrow), bounded retries', () => {
    const r = runUnittest('test_client');
    expect(r.stderr).toMatch(/\nOK\s*$/);
    expect([r.code, r.ran]).toEqual([0, 6]);
  }, 300_000);

  const verlMissing = noPython
    ? ['python3']
    : missingPython(['torch', 'numpy'], 'the verl sampler contract test');
  it.skipIf(verlMissing.length > 0)(
    'verl: the curriculum sampler driven exactly as verl drives it',
    () => {
      const r = runUnittest('test_verl_contract');
      if (r.stderr.includes('verl is not installed'))
        console.warn('NOTE: verl is not installed: the check against verl’s own class is skipped');
      expect(r.code, r.stderr.slice(-3000)).toBe(0);
      expect(r.ran).toBe(2);
      expect(r.stderr).not.toContain('torch is not installed');
    },
    300_000,
  );

  it('crash recovery: trainer killed between select and feedback; server killed mid-step', () => {
    const r = runUnittest('test_crash');
    expect(r.code, r.stderr.slice(-3000)).toBe(0);
    expect(r.stderr).toMatch(/Ran 3 tests[\s\S]*\nOK\s*$/);
  }, 600_000);
});
