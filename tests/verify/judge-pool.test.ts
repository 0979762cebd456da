import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { verifyMathBounded } from '../../src/verify/bounded-verify.ts';
import { JudgePool } from '../../src/verify/judge-pool.ts';
import { verifyMath } from '../../src/verify/verify-math.ts';

// The test-only slow operation (src/verify/judge-worker.ts): a response holding \winnowTestSpin
// spins forever inside a worker. Set before any worker starts (workers copy the environment).
process.env.WINNOW_JUDGE_TEST_SPIN = '1';
const SPIN = 'so the answer is $\\boxed{\\winnowTestSpin 5}$';

const pool = new JudgePool({ size: 1, graceMs: 50 });
afterAll(() => pool.close());

const CASES: Array<[string, string]> = [
  ['The answer is $\\boxed{\\frac{1}{2}}$.', '0.5'],
  ['$\\boxed{x^2+2x+1}$', '(x+1)^2'],
  ['$\\boxed{[0, 1)}$', '(0,1]'],
  ['so \\boxed{\\binom{10^{12}}{5\\cdot10^{11}}}', '5'],
  ['The answer is 7', '#### 8'],
];

describe('the judgement pool', () => {
  it('gives the verdicts verifyMath gives on this thread, in order', async () => {
    const got = await Promise.all(
      CASES.map(([r, g]) => pool.judge(r, g, { limits: { timeLimitMs: 5_000 } })),
    );
    const want = CASES.map(([r, g]) => verifyMath(r, g, { cache: null, limits: { timeLimitMs: 5_000 } }));
    expect(got.map((v) => [v.correct, v.reason, v.extracted])).toEqual(
      want.map((v) => [v.correct, v.reason, v.extracted]),
    );
    expect(got.map((v) => v.reason)).toEqual(['equal', 'equal', 'not_equal', 'too_costly', 'not_equal']);
  });

  it('stops a judgement at its deadline, replaces the worker, and this thread stays responsive', async () => {
    const server = createServer((_, res) => res.end('pong'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    let ticks = 0;
    const timer = setInterval(() => ticks++, 10);
    try {
      const startedBefore = pool.stats.started;
      const spinning = pool.judge(SPIN, '5', { limits: { timeLimitMs: 300 } });
      // While the worker spins, this thread answers HTTP and keeps its timers.
      const answers: string[] = [];
      for (let i = 0; i < 3; i++) answers.push(await (await fetch(`http://127.0.0.1:${port}/`)).text());
      const v = await spinning;
      expect(answers).toEqual(['pong', 'pong', 'pong']);
      expect(ticks).toBeGreaterThan(0);
      expect([v.correct, v.reason]).toEqual([false, 'timeout']);
      // Stopped at 2 × the limit + the 50 ms grace, in wall time.
      expect(v.detail).toBe(
        'stopped after 650 ms of wall time (its time limit is 300 ms); its worker was replaced',
      );
      expect(pool.stats.started).toBe(startedBefore + 1);
      // The replacement judges as before.
      const next = await pool.judge('$\\boxed{4}$', '4', { limits: { timeLimitMs: 5_000 } });
      expect([next.correct, next.reason]).toEqual([true, 'equal']);
    } finally {
      clearInterval(timer);
      await new Promise((r) => server.close(r));
    }
  });

  it('a spinning judgement among others: every verdict in order, only the spinning one a timeout', async () => {
    const rows: Array<[string, string]> = [...CASES.slice(0, 2), [SPIN, '5'], ...CASES.slice(2), [SPIN, '6']];
    const got = await Promise.all(rows.map(([r, g]) => pool.judge(r, g, { limits: { timeLimitMs: 300 } })));
    expect(got.map((v) => v.reason)).toEqual([
      'equal',
      'equal',
      'timeout',
      'not_equal',
      'too_costly',
      'not_equal',
      'timeout',
    ]);
  });

  it('verifyMathBounded: plain numbers stay on this thread, the rest go to the pool; verdicts cached', async () => {
    const own = new JudgePool({ size: 1 });
    try {
      const plain = await verifyMathBounded('so \\boxed{42}', '42', { pool: own, cache: null });
      expect([plain.reason, own.stats.judged]).toEqual(['equal', 0]);
      const expr = await verifyMathBounded('$\\boxed{x^2+2x+1}$', '(x+1)^2', { pool: own, cache: null });
      expect([expr.reason, own.stats.judged]).toEqual(['equal', 1]);
      const spin = await verifyMathBounded(SPIN, '5', { pool: own, limits: { timeLimitMs: 200 } });
      expect(spin.reason).toBe('timeout');
      expect(own.stats.stopped).toBe(1);
    } finally {
      await own.close();
    }
  });
});
