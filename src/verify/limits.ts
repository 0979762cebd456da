import { threadCpuMicros } from '../core/thread-cpu.ts';

/**
 * The bounds every judgement runs under. Text longer than `maxInputChars`, an extracted answer
 * longer than `maxAnswerChars` or nested deeper than `maxDepth` is refused before any parsing
 * (reason `too_large`); work that outlasts `timeLimitMs` is abandoned at the next check (reason
 * `timeout`). Both score 0: a verdict we could not reach is never a pass.
 */
export interface VerifyLimits {
  maxInputChars: number;
  maxAnswerChars: number;
  maxDepth: number;
  timeLimitMs: number;
}

export const DEFAULT_LIMITS: VerifyLimits = {
  maxInputChars: 100_000,
  maxAnswerChars: 2_000,
  maxDepth: 64,
  timeLimitMs: 200,
};

/** Thrown inside a judgement when a limit is hit; the judge turns it into a verdict of 0. */
export class LimitExceeded extends Error {
  readonly reason: 'timeout' | 'too_large';
  constructor(reason: 'timeout' | 'too_large', detail: string) {
    super(detail);
    this.reason = reason;
  }
}

/** Milliseconds of this thread's CPU time (user + system). */
const threadCpuMs = (): number => threadCpuMicros() / 1000;

/** What deadlines measure: wall time, unless a judgement worker asked for its thread's CPU time. */
let clock: () => number = () => performance.now();
/** The wall time a deadline allows the compute engine, as a multiple of its budget. */
let wallAllowance = 1;

/**
 * Judgement workers (judge-pool.ts) measure a judgement's time limit in their own thread's CPU
 * time, so a busy machine does not turn a cheap judgement into a timeout; the compute engine's own
 * limit (wall time) gets `allowance` × the budget, the pool's hard wall-clock stop.
 */
export function useThreadCpuClock(allowance: number): void {
  clock = threadCpuMs;
  wallAllowance = allowance;
}

/** A time budget checked between steps (JavaScript cannot interrupt a running call). */
export class Deadline {
  private end: number;
  private wallEnd: number;
  readonly ms: number;
  constructor(ms: number) {
    this.ms = ms;
    this.end = clock() + ms;
    this.wallEnd = performance.now() + ms * wallAllowance;
  }
  /** Give back time spent on one-off set-up (loading the engine), which says nothing about the input. */
  grant(ms: number): void {
    this.end += ms;
    this.wallEnd += ms;
  }

  /** Wall milliseconds left for the engine's own time limit (at least 1). */
  remaining(): number {
    return Math.max(1, this.wallEnd - performance.now());
  }

  check(where: string): void {
    if (clock() > this.end) throw new LimitExceeded('timeout', `over ${this.ms} ms (${where})`);
  }
}

/** Deepest `{`/`(`/`[` nesting in a text, stopping early once past `limit`. */
export function nestingDepth(text: string, limit: number): number {
  let depth = 0;
  let max = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 123 || c === 40 || c === 91) {
      depth++;
      if (depth > max) {
        max = depth;
        if (max > limit) return max;
      }
    } else if ((c === 125 || c === 41 || c === 93) && depth > 0) depth--;
  }
  return max;
}
