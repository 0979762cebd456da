import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mathStylePairs, type Pair } from '../../bench/judge-math-style.ts';
import { REPO_ROOT, winnow } from '../helpers/cli.ts';

interface BenchOut {
  results: Array<{
    suite: string;
    judge: string;
    judgements: number;
    perSecond: number;
    perCpuSecond: number;
    p50us: number;
    p99us: number;
    maxMs: number;
    accuracy: number;
    ratioToBaseline: number;
  }>;
  worstCase: { timeLimitMs: number; hostileInputs: number; worstMs: number; hostileReasons: string[] };
}

describe('winnow bench judge', () => {
  it('measures the verifier against the numbers-only judge on both suites, with the worst case', () => {
    const r = winnow(['bench', 'judge', '--responses', '400', '--rounds', '1', '--json']);
    const golden = readFileSync(join(REPO_ROOT, 'tests', 'verify', 'fixtures', 'math-golden.jsonl'), 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as Pair);
    const solutions = mathStylePairs(golden, 1).length;
    expect(solutions).toBeGreaterThan(golden.length / 2);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as BenchOut;
    expect(out.results.map((x) => [x.suite, x.judge, x.judgements])).toEqual([
      ['golden (MATH-style)', 'verifier', golden.length],
      ['golden (MATH-style)', 'numbers-only (baseline)', golden.length],
      // The golden pairs with a single boxed response, both sides written out as worked solutions.
      ['MATH-style solutions', 'verifier', solutions],
      ['MATH-style solutions', 'numbers-only (baseline)', solutions],
      ['GSM8K-style', 'verifier', 400],
      ['GSM8K-style', 'numbers-only (baseline)', 400],
    ]);
    // The verifier gets every golden verdict right; the numbers-only judge does not.
    expect(out.results[0]!.accuracy).toBe(1);
    expect(out.results[1]!.accuracy).toBeLessThan(0.8);
    expect(out.results[2]!.accuracy).toBe(1);
    expect(out.results[3]!.accuracy).toBeLessThan(0.8);
    expect(out.results[4]!.accuracy).toBe(1);
    for (const x of out.results) {
      expect(x.perSecond).toBeGreaterThan(0);
      expect(x.p50us).toBeLessThanOrEqual(x.p99us);
    }
    expect(out.results[1]!.ratioToBaseline).toBe(1);
    expect(out.worstCase.hostileInputs).toBe(11);
    expect(out.worstCase.hostileReasons.slice(0, 2)).toEqual(['too_large', 'too_large']);
    expect(out.worstCase.timeLimitMs).toBe(200);
  }, 120_000);
});
