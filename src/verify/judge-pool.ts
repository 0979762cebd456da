import { availableParallelism } from 'node:os';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { HARD_LIMIT_FACTOR, type JudgeJob, type JudgeReply } from './judge-messages.ts';
import { DEFAULT_LIMITS } from './limits.ts';
import type { MathVerdict, VerifyOptions } from './verify-math.ts';

/**
 * Judgements on worker threads, each under a hard deadline. JavaScript cannot interrupt a running
 * call, so the verifier's own time limit (checked between steps) cannot stop one engine call that
 * runs for hours; a worker can be terminated. A judgement's clock starts when a warmed worker takes
 * it (a worker's start — loading the engine, ~0.5–1 s — never counts against a judgement). In
 * the worker, `timeLimitMs` is the thread's CPU time, checked between steps (a busy machine does
 * not make a cheap judgement time out); a worker still busy at `HARD_LIMIT_FACTOR × timeLimitMs +
 * graceMs` of wall time (work that never reached a check) is terminated and replaced, and the
 * judgement gets the verdict `timeout`. The calling thread never waits on a judgement: it stays free for its
 * timers, I/O and other rollouts.
 */
export interface JudgePoolOptions {
  /** Worker threads (default: 2, or 1 on a one-core machine). */
  size?: number;
  /** Time beyond the judgement's own limit before its worker is terminated (copying, scheduling). */
  graceMs?: number;
  /** Heap cap per worker: a judgement that needs more ends as `too_large`, not as a dead process. */
  maxHeapMb?: number;
}

interface Pending {
  job: JudgeJob;
  resolve(v: MathVerdict): void;
  reject(e: Error): void;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  current: Pending | null;
  timer: NodeJS.Timeout | null;
  /** Set when this slot's worker was stopped on purpose: its exit is not a failure. */
  retired: boolean;
}

export interface JudgePoolStats {
  judged: number;
  /** Judgements stopped at their deadline (their worker terminated and replaced). */
  stopped: number;
  /** Workers started, the first ones included. */
  started: number;
}

const DEFAULT_GRACE_MS = 100;
const DEFAULT_HEAP_MB = 512;

function gaveUp(reason: 'timeout' | 'too_large' | 'unparseable', detail: string): MathVerdict {
  return {
    correct: false,
    reason,
    detail,
    extracted: null,
    extractedBy: null,
    expected: null,
    expectedBy: null,
    form: null,
  };
}

export class JudgePool {
  private target: number;
  private readonly graceMs: number;
  private readonly maxHeapMb: number;
  private readonly slots: Slot[] = [];
  private readonly queue: Pending[] = [];
  private nextId = 0;
  private closed = false;
  /** A worker that failed to start (a module that does not load): every judgement fails with it. */
  private broken: Error | null = null;
  readonly stats: JudgePoolStats = { judged: 0, stopped: 0, started: 0 };

  constructor(opts: JudgePoolOptions = {}) {
    this.target = Math.max(1, opts.size ?? defaultPoolSize());
    this.graceMs = opts.graceMs ?? DEFAULT_GRACE_MS;
    this.maxHeapMb = opts.maxHeapMb ?? DEFAULT_HEAP_MB;
  }

  get size(): number {
    return this.target;
  }

  /** Allow up to `size` workers (started as judgements arrive). The pool never shrinks. */
  grow(size: number): void {
    this.target = Math.max(this.target, size);
  }

  /** Judge on a worker; resolves with the verdict (never rejects, unless the workers cannot start). */
  judge(response: string, gold: string, options: Omit<VerifyOptions, 'cache'> = {}): Promise<MathVerdict> {
    if (this.closed) return Promise.reject(new Error('the judgement pool is closed'));
    if (this.broken) return Promise.reject(this.broken);
    const { cache: _ignored, ...plain } = options as VerifyOptions;
    const job: JudgeJob = { id: this.nextId++, response, gold, options: plain };
    return new Promise<MathVerdict>((resolve, reject) => {
      this.queue.push({ job, resolve, reject });
      while (this.slots.length < this.target) this.slots.push(this.spawn());
      this.dispatch();
      this.updateRefs();
    });
  }

  /** Terminate every worker; queued judgements fail. */
  async close(): Promise<void> {
    this.closed = true;
    for (const p of this.queue.splice(0)) p.reject(new Error('the judgement pool was closed'));
    await Promise.all(
      this.slots.splice(0).map((s) => {
        s.retired = true;
        if (s.timer) clearTimeout(s.timer);
        s.current?.reject(new Error('the judgement pool was closed'));
        return s.worker.terminate();
      }),
    );
  }

  private spawn(): Slot {
    const here = fileURLToPath(import.meta.url);
    // The same extension as this file: .ts from the sources, .js from the built package.
    const entry = new URL(`./judge-worker${extname(here)}`, import.meta.url);
    const worker = new Worker(entry, { resourceLimits: { maxOldGenerationSizeMb: this.maxHeapMb } });
    this.stats.started++;
    const slot: Slot = { worker, ready: false, current: null, timer: null, retired: false };
    worker.unref();
    worker.on('message', (reply: JudgeReply) => this.onReply(slot, reply));
    worker.on('error', (err) => this.onFailure(slot, err));
    worker.on('exit', (code) => {
      if (!slot.retired) this.onFailure(slot, new Error(`a judgement worker stopped (exit code ${code})`));
    });
    return slot;
  }

  private onReply(slot: Slot, reply: JudgeReply): void {
    if ('ready' in reply) {
      slot.ready = true;
    } else if (slot.current && slot.current.job.id === reply.id) {
      if (slot.timer) clearTimeout(slot.timer);
      const done = slot.current;
      slot.current = null;
      slot.timer = null;
      this.stats.judged++;
      done.resolve(reply.verdict);
    }
    this.dispatch();
    this.updateRefs();
  }

  /** A worker died: out of memory during a judgement is that judgement's verdict; at start, the pool is broken. */
  private onFailure(slot: Slot, err: Error): void {
    if (slot.retired) return;
    slot.retired = true;
    if (slot.timer) clearTimeout(slot.timer);
    const done = slot.current;
    slot.current = null;
    if (!slot.ready && !done) {
      this.broken = new Error(`the judgement worker could not start: ${err.message.split('\n')[0]}`);
      for (const p of this.queue.splice(0)) p.reject(this.broken);
      this.removeSlot(slot);
      this.updateRefs();
      return;
    }
    if (done) {
      this.stats.judged++;
      const oom =
        /memory/i.test(err.message) || (err as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY';
      done.resolve(
        oom
          ? gaveUp(
              'too_large',
              `the judgement needed more than ${this.maxHeapMb} MB; its worker was replaced`,
            )
          : gaveUp(
              'unparseable',
              `the judgement's worker failed (${err.message.split('\n')[0]!.slice(0, 80)}); it was replaced`,
            ),
      );
    }
    this.replace(slot);
  }

  private replace(slot: Slot): void {
    this.removeSlot(slot);
    if (!this.closed) this.slots.push(this.spawn());
    this.dispatch();
    this.updateRefs();
  }

  private removeSlot(slot: Slot): void {
    const i = this.slots.indexOf(slot);
    if (i >= 0) this.slots.splice(i, 1);
  }

  private dispatch(): void {
    for (const slot of this.slots) {
      if (this.queue.length === 0) return;
      if (!slot.ready || slot.current || slot.retired) continue;
      const next = this.queue.shift()!;
      slot.current = next;
      const limit = next.job.options.limits?.timeLimitMs ?? DEFAULT_LIMITS.timeLimitMs;
      const hardMs = limit * HARD_LIMIT_FACTOR + this.graceMs;
      slot.timer = setTimeout(() => this.stop(slot, limit, hardMs), hardMs);
      slot.worker.postMessage(next.job);
    }
  }

  /** The deadline passed: terminate the worker, answer `timeout`, start a replacement. */
  private stop(slot: Slot, limit: number, hardMs: number): void {
    const done = slot.current;
    if (!done || slot.retired) return;
    slot.retired = true;
    slot.current = null;
    slot.timer = null;
    this.stats.stopped++;
    this.stats.judged++;
    void slot.worker.terminate();
    done.resolve(
      gaveUp(
        'timeout',
        `stopped after ${hardMs} ms of wall time (its time limit is ${limit} ms); its worker was replaced`,
      ),
    );
    this.replace(slot);
  }

  /** Workers keep the process alive only while judgements wait on them. */
  private updateRefs(): void {
    const busy = this.queue.length > 0 || this.slots.some((s) => s.current !== null);
    for (const s of this.slots) {
      if (busy) s.worker.ref();
      else s.worker.unref();
    }
  }
}

/** 2 workers (1 on a one-core machine), or WINNOW_JUDGE_WORKERS. */
export function defaultPoolSize(): number {
  const env = Number(process.env.WINNOW_JUDGE_WORKERS);
  if (Number.isInteger(env) && env > 0) return env;
  return Math.min(2, availableParallelism());
}

let shared: JudgePool | null = null;

/** The process's judgement pool (started on first use; its workers never keep the process alive). */
export function sharedJudgePool(size?: number): JudgePool {
  shared ??= new JudgePool(size !== undefined ? { size } : {});
  if (size !== undefined) shared.grow(size);
  return shared;
}
