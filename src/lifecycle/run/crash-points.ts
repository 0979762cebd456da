/**
 * Crash points for fault tests: `WINNOW_CRASH_AT=<point>:<step>` makes the run SIGKILL itself
 * the moment it reaches that point of that explorer step, so a test can aim a kill between two
 * writes that a timed kill would hit only by luck. Unset (always, outside tests), it costs one
 * string comparison.
 *
 * - `step:N`: step N's metrics line is written; its checkpoint (if due) is not.
 * - `checkpoint-pointer:N`: checkpoint N's `latest.json` is written; nothing after it is.
 * - `checkpoint:N`: checkpoint N is complete (acknowledged and announced).
 */
export type CrashPoint = 'step' | 'checkpoint-pointer' | 'checkpoint';

export function crashPoint(point: CrashPoint, step: number): void {
  const at = process.env.WINNOW_CRASH_AT;
  if (at === undefined || at !== `${point}:${step}`) return;
  process.kill(process.pid, 'SIGKILL');
}
