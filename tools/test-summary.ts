// The closing lines of `npm test` (scripts/test-all.sh): how long each phase took, the slowest test
// files, and one plain line "Tests: N passed, N failed, N skipped" — the form CI logs are read for.
//
//   node tools/test-summary.ts [--phases FILE] [--deps FILE] [--checks-failed] [vitest.json ...]
//
// --phases: lines "<phase> <epoch seconds>" in order ("start" first: the moment timing began).
// --deps: lines "<name> <start> <end> <exit code>", one per background install.
// --checks-failed: typecheck or lint failed, so no test ran (counted as one failure).
// A vitest JSON file that does not exist (a phase that did not run) is left out.
import { existsSync, readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { z } from 'zod';

const VitestJson = z.object({
  numPassedTests: z.number(),
  numFailedTests: z.number(),
  numPendingTests: z.number(),
  numTodoTests: z.number(),
  testResults: z
    .array(
      z.object({
        name: z.string(),
        status: z.string(),
        startTime: z.number().optional(),
        endTime: z.number().optional(),
        assertionResults: z.array(z.object({ status: z.string() })).default([]),
      }),
    )
    .default([]),
});
type VitestJson = z.infer<typeof VitestJson>;

const PHASE_NAMES: Record<string, string> = {
  typecheck: 'typecheck',
  lint: 'lint',
  layers: 'layer rule',
  'tests-early': 'tests without installs',
  'deps-wait': 'waiting for installs',
  'tests-late': 'tests that need them',
};

/** 754.2 → "12m34s"; 8.04 → "8.0s". */
export function duration(seconds: number): string {
  if (seconds < 60) return `${seconds.toFixed(1)}s`;
  const whole = Math.round(seconds);
  return `${Math.floor(whole / 60)}m${String(whole % 60).padStart(2, '0')}s`;
}

function readLines(file: string | undefined): string[][] {
  if (file === undefined || !existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => l.trim().split(/\s+/));
}

/** "Time: …" lines from the phase stamps and the background installs. */
export function timeLines(phases: string[][], deps: string[][], endSeconds: number): string[] {
  if (phases.length === 0) return [];
  const start = Number(phases[0]![1]);
  const parts: string[] = [];
  for (let i = 1; i < phases.length; i++) {
    const [name, at] = phases[i]!;
    const took = Number(at) - Number(phases[i - 1]![1]);
    if (name === 'script') {
      if (took >= 1) parts.push(`before npm test (npm install) ${duration(took)}`);
    } else parts.push(`${PHASE_NAMES[name!] ?? name} ${duration(took)}`);
  }
  const lines = [`Time: ${duration(endSeconds - start)} in all: ${parts.join(', ')}`];
  if (deps.length > 0)
    lines.push(
      `  background installs: ${deps
        .map(
          ([name, t0, t1, rc]) =>
            `${name} ${duration(Number(t1) - Number(t0))}${rc === '0' ? '' : ` (exit ${rc})`}`,
        )
        .join(', ')}`,
    );
  return lines;
}

/** The counts over every phase's results; a file that failed to load counts as one failure. */
export function counts(results: readonly VitestJson[]): { passed: number; failed: number; skipped: number } {
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  for (const r of results) {
    passed += r.numPassedTests;
    skipped += r.numPendingTests + r.numTodoTests;
    failed += r.numFailedTests;
    for (const f of r.testResults)
      if (f.status === 'failed' && !f.assertionResults.some((a) => a.status === 'failed')) failed += 1;
  }
  return { passed, failed, skipped };
}

function slowest(results: readonly VitestJson[], n: number): string[] {
  const files = results
    .flatMap((r) => r.testResults)
    .filter((f) => f.startTime !== undefined && f.endTime !== undefined)
    .map((f) => ({ name: relative(process.cwd(), f.name), s: (f.endTime! - f.startTime!) / 1000 }))
    .sort((a, b) => b.s - a.s)
    .slice(0, n);
  return files.length === 0
    ? []
    : [`Slowest files: ${files.map((f) => `${f.name} ${duration(f.s)}`).join(', ')}`];
}

function main(argv: string[]): void {
  let phasesFile: string | undefined;
  let depsFile: string | undefined;
  let checksFailed = false;
  const jsonFiles: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--checks-failed') checksFailed = true;
    else if (argv[i] === '--phases') phasesFile = argv[++i];
    else if (argv[i] === '--deps') depsFile = argv[++i];
    else jsonFiles.push(argv[i]!);
  }
  if (phasesFile === undefined && jsonFiles.length === 0) jsonFiles.push('.winnow/vitest.json');
  const results = jsonFiles
    .filter((f) => existsSync(f))
    .map((f) => VitestJson.parse(JSON.parse(readFileSync(f, 'utf8'))));
  const lines = [
    ...slowest(results, 6),
    ...timeLines(readLines(phasesFile), readLines(depsFile), Date.now() / 1000),
  ];
  const c = counts(results);
  // Typecheck or lint failed and no test ran: that is a failure, never "0 failed".
  if (checksFailed)
    lines.push('Tests: 0 passed, 1 failed, 0 skipped (typecheck or lint failed; no test ran)');
  else lines.push(`Tests: ${c.passed} passed, ${c.failed} failed, ${c.skipped} skipped`);
  process.stdout.write(`${lines.join('\n')}\n`);
}

if (import.meta.main) main(process.argv.slice(2));
