// `bench curriculum --jobs N`: the comparison's seeds spread over N child processes. Runs on
// different seeds are independent (a seed's budget comes from random's run on that seed, which the
// same child runs first), so each child takes a contiguous range of seeds, appends every finished
// run to the same --curves file (one write per run), and the parent then reads them all back as a
// resume would and reports. Results do not depend on N: each run's curve depends only on its method,
// seed and budget.
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import type { OptionSpec } from '../../src/cli/command-spec.ts';
import { CURRICULUM_BENCH_SPEC } from './spec.ts';

/** Options a child never gets: the parent's output, its seed range, and the parent-only extras. */
const PARENT_ONLY = new Set([
  'jobs',
  'json',
  'html',
  'quiet',
  'first-seed',
  'seeds',
  'curves',
  'report-only',
  'overhead-tasks',
]);

/** Contiguous seed ranges, as equal as possible, at most `jobs` of them. */
export function seedRanges(seeds: readonly number[], jobs: number): number[][] {
  const n = Math.max(1, Math.min(jobs, seeds.length));
  const ranges: number[][] = [];
  let at = 0;
  for (let i = 0; i < n; i++) {
    const size = Math.floor(seeds.length / n) + (i < seeds.length % n ? 1 : 0);
    ranges.push(seeds.slice(at, at + size));
    at += size;
  }
  return ranges;
}

/** The command line that repeats the parent's given options (less the parent-only ones). */
export function childOptions(values: Record<string, unknown>, given: ReadonlySet<string>): string[] {
  const options = CURRICULUM_BENCH_SPEC.options as Record<string, OptionSpec>;
  const out: string[] = [];
  for (const name of Object.keys(options)) {
    if (PARENT_ONLY.has(name) || !given.has(name)) continue;
    const v = values[name];
    if (options[name]!.type === 'boolean') {
      if (v === true) out.push(`--${name}`);
    } else out.push(`--${name}`, Array.isArray(v) ? v.join(',') : String(v));
  }
  return out;
}

/**
 * Runs every seed range in its own process (all at once) and waits for all; each child's progress
 * lines go to `log`. Throws, naming the seeds, when a child fails.
 */
export async function runSeedRanges(opts: {
  options: readonly string[];
  ranges: readonly (readonly number[])[];
  curves: string;
  quiet: boolean;
  log: (line: string) => void;
}): Promise<void> {
  const main = resolve(import.meta.dirname, 'main.ts');
  await Promise.all(
    opts.ranges.map(
      (range) =>
        new Promise<void>((done, fail) => {
          const args = [
            ...process.execArgv,
            main,
            ...opts.options,
            '--first-seed',
            String(range[0]),
            '--seeds',
            String(range.length),
            '--curves',
            opts.curves,
            ...(opts.quiet ? ['--quiet'] : []),
          ];
          const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
          const tail: string[] = [];
          let partial = '';
          child.stderr.setEncoding('utf8');
          child.stderr.on('data', (chunk: string) => {
            const lines = (partial + chunk).split('\n');
            partial = lines.pop()!;
            for (const line of lines) {
              tail.push(line);
              if (tail.length > 5) tail.shift();
              opts.log(line);
            }
          });
          child.on('error', fail);
          child.on('close', (code) => {
            if (code === 0) return done();
            const seeds = `${range[0]}–${range[range.length - 1]}`;
            fail(
              new Error(
                `the child process for seeds ${seeds} exited with ${code}: ${[...tail, partial].join(' | ')}`,
              ),
            );
          });
        }),
    ),
  );
}
