import { findAnswer } from './extract.ts';
import { type JudgePool, sharedJudgePool } from './judge-pool.ts';
import { LruCache } from './verdict-cache.ts';
import { type MathVerdict, type VerifyOptions, verifyMath } from './verify-math.ts';

/**
 * `verifyMathBounded`: the verdict of `verifyMath`, under a hard time bound. Judgements run on the
 * judgement pool (judge-pool.ts), where one that outlives its limit is stopped; the caller's
 * thread only waits on a promise. Two cases stay on the calling thread, because a worker's
 * round trip costs more than they do and they cannot reach the symbolic engine: a verdict already
 * in the cache, and two plain numbers (`42`, `-3.5`) in short texts.
 */
export interface BoundedVerifyOptions extends VerifyOptions {
  /** The pool to judge on; `null` judges on this thread (no hard bound). Default: the shared pool. */
  pool?: JudgePool | null;
}

const CACHE = new LruCache<MathVerdict>(10_000);
const MAX_CACHED_KEY = 8_192;
/** Texts up to this length are scanned here for the plain-number fast path. */
const FAST_TEXT_CHARS = 4_096;
const PLAIN_NUMBER = /^-?\d{1,20}(?:\.\d{1,20})?$/;

function plainNumberAnswer(text: string): boolean {
  if (text.length > FAST_TEXT_CHARS) return false;
  const found = findAnswer(text);
  return found !== null && 'answer' in found && PLAIN_NUMBER.test(found.answer.trim());
}

/** Both answers are plain numbers: a judgement that never reaches the engine. */
export function isTrivialJudgement(response: string, gold: string): boolean {
  return plainNumberAnswer(gold) && plainNumberAnswer(response);
}

export async function verifyMathBounded(
  response: string,
  gold: string,
  opts: BoundedVerifyOptions = {},
): Promise<MathVerdict> {
  const { pool: poolOpt, cache: cacheOpt, ...options } = opts;
  const cache = cacheOpt === undefined ? CACHE : cacheOpt;
  const key =
    cache && response.length + gold.length < MAX_CACHED_KEY
      ? `${options.tolerance ?? ''}|${options.percent ?? ''}|${JSON.stringify(options.limits ?? {})}|${gold}\u0000${response}`
      : null;
  if (key !== null) {
    const hit = cache!.get(key);
    if (hit) return hit;
  }
  const pool = poolOpt === undefined ? sharedJudgePool() : poolOpt;
  const v =
    pool === null || isTrivialJudgement(response, gold)
      ? verifyMath(response, gold, { ...options, cache: null })
      : await pool.judge(response, gold, options);
  // A timeout is not remembered: the same judgement may be asked again with a longer limit.
  if (key !== null && v.reason !== 'timeout') cache!.set(key, v);
  return v;
}
