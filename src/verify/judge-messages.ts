import type { MathVerdict, VerifyOptions } from './verify-math.ts';

/**
 * In a worker, a judgement's `timeLimitMs` is CPU time of the worker's thread (checked between
 * steps: the verdict then does not depend on the machine's load); the pool stops a worker still
 * busy after this many times the limit in wall time (plus a grace): the bound on work that never
 * reaches a check.
 */
export const HARD_LIMIT_FACTOR = 2;

/** One judgement sent to a pool worker (the options without the cache, which stays per thread). */
export interface JudgeJob {
  id: number;
  response: string;
  gold: string;
  options: Omit<VerifyOptions, 'cache'>;
}

/** A worker's answer: ready once warmed, then one verdict per job. */
export type JudgeReply = { ready: true } | { id: number; verdict: MathVerdict };
