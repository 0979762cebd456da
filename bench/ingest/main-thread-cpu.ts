import { readFileSync } from 'node:fs';

/**
 * CPU seconds of this process's main thread so far (Linux: /proc/self/task/<pid>/stat, in clock
 * ticks of 1/100 s), or null elsewhere. Beside the whole process's CPU seconds it shows where a
 * run's time goes: the main JS thread bounds a run's wall time on an idle machine, and the rest
 * (worker threads, V8's GC and compiler threads, LanceDB's writers) is what the other cores do.
 */
export function mainThreadCpuSecs(): number | null {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

/** Main-thread CPU seconds spent since `from` (null when unknown). */
export function mainThreadSince(from: number | null): number | null {
  const now = mainThreadCpuSecs();
  return from === null || now === null ? null : now - from;
}
