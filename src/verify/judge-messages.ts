import type { MathVerdict, VerifyOptions } from './verify-math.ts';

/** One judgement sent to a pool worker (the options without the cache, which stays per thread). */
export interface JudgeJob {
  id: number;
  response: string;
  gold: string;
  options: Omit<VerifyOptions, 'cache'>;
}

/** A worker's answer: ready once warmed, then one verdict per job. */
export type JudgeReply = { ready: true } | { id: number; verdict: MathVerdict };
