import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { childOptions, seedRanges } from '../../bench/learning-curriculum/jobs.ts';

const ROOT = resolve(import.meta.dirname, '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'winnow-jobs-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The JSON without its timings (the only fields that may differ between two runs). */
function withoutSeconds(x: unknown): unknown {
  if (Array.isArray(x)) return x.map(withoutSeconds);
  if (x && typeof x === 'object')
    return Object.fromEntries(
      Object.entries(x)
        .filter(([k]) => k !== 'seconds')
        .map(([k, v]) => [k, withoutSeconds(v)]),
    );
  return x;
}

function bench(extra: string[]) {
  const r = spawnSync(
    process.execPath,
    [
      'bench/learning-curriculum/main.ts',
      '--smoke',
      '--seeds',
      '2',
      '--selectors',
      'random,dump',
      '--json',
      '--quiet',
      ...extra,
    ],
    { cwd: ROOT, encoding: 'utf8', timeout: 600_000 },
  );
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  return JSON.parse(r.stdout) as { seeds: number[]; curves: Array<{ selector: string; seed: number }> };
}

describe('bench curriculum --jobs', () => {
  it('splits the seeds into contiguous ranges, as equal as possible', () => {
    const seeds = [6, 7, 8, 9, 10, 11, 12, 13, 14, 15];
    expect(seedRanges(seeds, 3)).toEqual([
      [6, 7, 8, 9],
      [10, 11, 12],
      [13, 14, 15],
    ]);
    expect(seedRanges([6, 7], 4)).toEqual([[6], [7]]);
    expect(seedRanges(seeds, 1)).toEqual([seeds]);
  });

  it("repeats the parent's given options to a child, never its output, seed range or jobs", () => {
    const given = new Set(['learner', 'selectors', 'smoke', 'json', 'jobs', 'seeds', 'curves', 'lr']);
    const values = {
      learner: 'arithmetic',
      selectors: ['random', 'dump'],
      smoke: true,
      json: true,
      jobs: 3,
      seeds: 10,
      curves: 'x.jsonl',
      lr: 0.003,
      steps: 40,
    };
    expect(childOptions(values, given)).toEqual([
      '--learner',
      'arithmetic',
      '--lr',
      '0.003',
      '--selectors',
      'random,dump',
      '--smoke',
    ]);
  });

  it('gives the JSON of one process (timings aside), and a second run with the same --curves runs nothing', () => {
    const one = bench([]);
    const curves = join(dir, 'curves.jsonl');
    const two = bench(['--jobs', '2', '--curves', curves]);
    expect(two.seeds).toEqual([6, 7]);
    expect(two.curves.map((c) => `${c.selector}@${c.seed}`)).toEqual([
      'random@6',
      'dump@6',
      'random@7',
      'dump@7',
    ]);
    expect(withoutSeconds(two)).toEqual(withoutSeconds(one));
    const stored = readFileSync(curves, 'utf8');
    expect(stored.trim().split('\n')).toHaveLength(4);
    // Resume: every run is found in the file, so the runs (their timings included) are the stored ones.
    const again = bench(['--jobs', '2', '--curves', curves]);
    expect(readFileSync(curves, 'utf8')).toBe(stored);
    expect(again).toEqual(two);
  }, 900_000);
});
