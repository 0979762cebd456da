import { performance } from 'node:perf_hooks';
import { mainThreadCpuSecs, mainThreadSince } from './ingest/main-thread-cpu.ts';

/**
 * One timed span: wall seconds, this process's CPU seconds over every thread (JS, V8's GC and
 * compiler helpers, LanceDB's native threads; not child processes), and the main JS thread's share
 * (null off Linux). CPU ÷ wall is how many cores the span kept busy: on a 2-core machine a span
 * near 2 is bound by CPU, not by waiting, and no reordering of its work can make it much faster.
 */
export interface SpanTimes {
  secs: number;
  cpuSecs: number;
  mainCpuSecs: number | null;
}

/** Run `fn` and time it (wall, process CPU, main-thread CPU). */
export async function timedSpan<T>(fn: () => Promise<T>): Promise<{ value: T; times: SpanTimes }> {
  const main0 = mainThreadCpuSecs();
  const cpu0 = process.cpuUsage();
  const t = performance.now();
  const value = await fn();
  const secs = (performance.now() - t) / 1000;
  const cpu = process.cpuUsage(cpu0);
  return {
    value,
    times: { secs, cpuSecs: (cpu.user + cpu.system) / 1e6, mainCpuSecs: mainThreadSince(main0) },
  };
}
