import { type ChildProcess, fork } from 'node:child_process';
import { setPriority } from 'node:os';
import { extname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type * as arrow from 'apache-arrow';
import { WinnowError } from '../../core/errors.ts';
import { tableToIpcStream } from '../../io/arrow-ipc.ts';
import type { UpkeepReply, UpkeepRequest } from './upkeep-process.ts';

/** The upkeep process's nice value (0 = the buffer's own priority, 19 = the lowest). */
const UPKEEP_NICE = Number(process.env.WINNOW_UPKEEP_NICE ?? 10);

type Job =
  | { op: 'fold'; rows: Uint8Array<ArrayBuffer> }
  | { op: 'optimize'; cutoffMs: number }
  | { op: 'open' };

/**
 * Where a large buffer's background fold and compaction run: `process` (default) in a child process
 * of their own (upkeep-process.ts), `inline` in the buffer's process. LanceDB runs all of a process's
 * table operations on one native thread pool, so a fold of a 1M-row table inside the buffer's process
 * held up the `sample` takes beside it for up to seconds (bench buffer, session 3); in another
 * process it only shares the CPU. `WINNOW_UPKEEP=inline` keeps the old behaviour (benchmarks compare
 * the two in one run).
 */
export function upkeepMode(): 'process' | 'inline' {
  return process.env.WINNOW_UPKEEP === 'inline' ? 'inline' : 'process';
}

/**
 * The parent side of the upkeep process: started on the first job, one job at a time, stopped by
 * `stop` (the buffer's close) or when the buffer's process exits. A job is one LanceDB commit made
 * by the child; a failed job (or a child that died) rejects, and the table is as it was before it.
 */
export class UpkeepRunner {
  private child: ChildProcess | null = null;
  private nextId = 0;
  private readonly waiting = new Map<number, { ok: () => void; fail: (e: Error) => void }>();
  private readonly dir: string;
  private readonly table: string;

  constructor(dir: string, table: string) {
    this.dir = resolve(dir);
    this.table = table;
  }

  /** Write `rows` (the fold columns, matched on id and seq) into the table, from the child. */
  fold(rows: arrow.Table): Promise<void> {
    return this.run({ op: 'fold', rows: new Uint8Array(tableToIpcStream(rows)) });
  }

  /** Compact the table and drop versions older than `cutoff`, from the child. */
  optimize(cutoff: Date): Promise<void> {
    return this.run({ op: 'optimize', cutoffMs: cutoff.getTime() });
  }

  /** Start the child ahead of its first job (a large table will need one; starting takes a while). */
  warm(): void {
    if (this.child) return;
    // Open the table there too, so the first job does not pay for it.
    this.run({ op: 'open' }).catch(() => undefined);
  }

  /** Stop the child (jobs in flight fail; each is one atomic commit, landed or not). */
  stop(): void {
    const child = this.child;
    this.child = null;
    if (child && child.exitCode === null) child.kill();
  }

  private run(job: Job): Promise<void> {
    const child = this.start();
    const id = this.nextId++;
    const req: UpkeepRequest = { id, dir: this.dir, table: this.table, ...job };
    return new Promise<void>((ok, fail) => {
      this.waiting.set(id, { ok, fail });
      // While a job runs the child keeps the buffer's process alive; idle, it does not.
      child.ref();
      child.channel?.ref();
      child.send(req, (err) => {
        if (err) this.settle(id, new WinnowError(`upkeep of table '${this.table}': ${err.message}`));
      });
    });
  }

  private settle(id: number, err: Error | null): void {
    const w = this.waiting.get(id);
    if (!w) return;
    this.waiting.delete(id);
    if (this.waiting.size === 0) {
      this.child?.unref();
      this.child?.channel?.unref();
    }
    if (err) w.fail(err);
    else w.ok();
  }

  private start(): ChildProcess {
    if (this.child && this.child.exitCode === null && this.child.connected) return this.child;
    const here = fileURLToPath(import.meta.url);
    // The same extension as this file: .ts from the sources, .js from the built package.
    const entry = fileURLToPath(new URL(`./upkeep-process${extname(here)}`, import.meta.url));
    // Only the flags that let Node run TypeScript sources (older Node 22 needs them), nothing else
    // the parent was started with (a test runner's or profiler's flags).
    const execArgv = process.execArgv.filter((a) => /-types\b/.test(a));
    const child = fork(entry, [], {
      serialization: 'advanced',
      execArgv,
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    child.on('message', (m: UpkeepReply) =>
      this.settle(m.id, m.ok ? null : new WinnowError(`upkeep of table '${this.table}': ${m.message}`)),
    );
    const gone = (why: string) => {
      if (this.child === child) this.child = null;
      for (const id of [...this.waiting.keys()])
        this.settle(id, new WinnowError(`upkeep of table '${this.table}': the upkeep process ${why}`));
    };
    child.on('exit', (code, signal) => gone(`exited (${signal ?? `code ${code}`})`));
    child.on('error', (err) => gone(`failed: ${err.message}`));
    // Below the buffer's own process: where both want the CPU, a sample's take goes first and the
    // background job waits (it is background work; it runs whenever the CPU is free).
    if (child.pid !== undefined) {
      try {
        setPriority(child.pid, UPKEEP_NICE);
      } catch {
        // Not allowed here (some containers): the job runs at the same priority, as before.
      }
    }
    child.unref();
    child.channel?.unref();
    this.child = child;
    return child;
  }
}
