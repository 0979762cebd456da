// The worker side of the judgement pool (judge-pool.ts): warms the verifier (parser dictionaries,
// the compute engine) before it says it is ready, so a cold start never counts against a
// judgement, then answers one judgement at a time. The main thread holds the deadline and
// terminates this worker when a judgement outlives it.

import { parentPort } from 'node:worker_threads';
import { HARD_LIMIT_FACTOR, type JudgeJob, type JudgeReply } from './judge-messages.ts';
import { useThreadCpuClock } from './limits.ts';
import { verifyMath } from './verify-math.ts';

/**
 * A test-only slow operation: with WINNOW_JUDGE_TEST_SPIN=1 in the environment, a response holding
 * `\winnowTestSpin` spins forever here, the stand-in for an input whose cost explodes in the
 * engine (the pool must stop it). Without the variable the marker is ordinary text.
 */
const SPIN_MARKER = '\\winnowTestSpin';
const spinEnabled = process.env.WINNOW_JUDGE_TEST_SPIN === '1';

function warm(): void {
  // A number, an expression the engine simplifies and an interval: every lazy part gets loaded.
  const opts = { cache: null, limits: { timeLimitMs: 60_000 } };
  verifyMath('The answer is $\\boxed{\\frac{1}{2}}$.', '0.5', opts);
  verifyMath('$\\boxed{x^2+2x+1}$', '(x+1)^2', opts);
  verifyMath('$\\boxed{[0, 1)}$', '[0,1)', opts);
}

useThreadCpuClock(HARD_LIMIT_FACTOR);
warm();
const port = parentPort!;
port.on('message', (job: JudgeJob) => {
  if (spinEnabled && job.response.includes(SPIN_MARKER)) for (;;);
  const verdict = verifyMath(job.response, job.gold, { ...job.options, cache: null });
  port.postMessage({ id: job.id, verdict } satisfies JudgeReply);
});
port.postMessage({ ready: true } satisfies JudgeReply);
