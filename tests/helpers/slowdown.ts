/**
 * How much slower than usual this machine runs right now, measured once per vitest run (in
 * vitest.config.ts) and handed to every test worker as WINNOW_TEST_SLOWDOWN. vitest's test and
 * hook timeouts, and the helpers' own limits (a CLI child, a Python script), are multiplied by it,
 * so a machine busy with other work gets proportionally longer before anything counts as hung.
 *
 * The measure is machine-independent: a fixed CPU-bound loop is timed by the wall clock and by
 * the CPU time this process got. On an idle machine the two agree (1); when other processes
 * compete for the cores, the loop waits for its turn and the ratio grows (both cores busy with
 * two other loops: about 1.5; load 12 on 2 cores: about 3.5). Set WINNOW_TEST_SLOWDOWN yourself
 * to override it.
 */

const ENV = 'WINNOW_TEST_SLOWDOWN';
const MAX = 6;

function spin(): number {
  let x = 0;
  for (let i = 0; i < 5_000_000; i++) x = (x * 31 + i) % 1_000_003;
  return x;
}

/**
 * From the median wall/CPU ratio r of 7 short loops (~20-40 ms each when idle): 1 + 2 (r - 1),
 * between 1 and 6. The loop is one runnable thread; a test often has two (the worker and the
 * process it started), which get a smaller share of busy cores than the loop did, hence twice
 * the measured excess.
 */
export function measureSlowdown(): number {
  const ratios: number[] = [];
  let sink = 0;
  for (let k = 0; k < 7; k++) {
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    sink += spin();
    const wallMs = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    const cpuMs = (cpu.user + cpu.system) / 1000;
    ratios.push(cpuMs > 0 ? wallMs / cpuMs : 1);
  }
  if (sink < 0) throw new Error('unreachable'); // keeps the loop from being optimised away
  ratios.sort((a, b) => a - b);
  return clamp(1 + 2 * (ratios[3]! - 1));
}

function clamp(f: number): number {
  return Math.round(Math.min(MAX, Math.max(1, f)) * 10) / 10;
}

/** The factor for this run: WINNOW_TEST_SLOWDOWN when set (by vitest.config.ts or by hand), else 1. */
export function slowdown(): number {
  const v = Number(process.env[ENV]);
  return Number.isFinite(v) && v > 0 ? clamp(v) : 1;
}

/** `ms` stretched by this run's slowdown factor: for limits on waits, never for assertions. */
export function scaled(ms: number): number {
  return Math.round(ms * slowdown());
}

/** The factor from the environment when given, else measured now; written back to the environment. */
export function slowdownForRun(): number {
  const given = Number(process.env[ENV]);
  const f = Number.isFinite(given) && given > 0 ? clamp(given) : measureSlowdown();
  process.env[ENV] = String(f);
  return f;
}
