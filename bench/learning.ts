// bench/learning: task selection on the real tiny learner. The arithmetic RFT loop
// (pipelines/arithmetic-bots.yaml) runs with random, BOTS and the shared-ability successor over
// several seeds; held-out accuracy is measured every few steps, and each selector's steps (and
// rollouts) to reach random's final accuracy are reported relative to random, the baseline run here.
// Run: npx winnow bench learning [--seeds 3] [--steps 80] [--selectors random,bots,shared_ability]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseCommand } from '../src/cli/command-spec.ts';
import { formatTable } from '../src/cli/table.ts';
import { LEARNING_BENCH_SPEC, type LEARNING_SELECTORS } from './bench-specs.ts';
import { type Curve, fmt, meanSd, reach, runCurve } from './rft-curves.ts';

const PIPELINE = resolve(import.meta.dirname, '..', 'pipelines', 'arithmetic-bots.yaml');

const SELECTORS: Record<
  (typeof LEARNING_SELECTORS)[number],
  { type: string; params: Record<string, unknown> }
> = {
  random: { type: 'random', params: {} },
  bots: { type: 'bots', params: { m: 8, lambda: 0.1, rho: 0, target: 0.5 } },
  shared_ability: { type: 'shared_ability', params: {} },
};

export async function learningBenchMain(argv: string[]): Promise<number> {
  const parsed = parseCommand(LEARNING_BENCH_SPEC, argv);
  if (!parsed) return 0;
  const { values } = parsed;
  const seeds = Array.from({ length: values.seeds }, (_, i) => i + 1);
  const { steps, every } = values;
  // The spec checked every name against LEARNING_SELECTORS.
  const selectors = values.selectors as Array<(typeof LEARNING_SELECTORS)[number]>;
  if (!selectors.includes('random')) selectors.unshift('random');
  const dir = mkdtempSync(join(tmpdir(), 'winnow-bench-learning-'));
  try {
    const curves: Curve[] = [];
    for (const seed of seeds) {
      for (const s of selectors) {
        process.stderr.write(`seed ${seed}: ${s}…\n`);
        curves.push(
          await runCurve(PIPELINE, s, seed, {
            steps,
            every,
            dir,
            change: (c) => ({ ...c, selector: SELECTORS[s]! }),
          }),
        );
      }
    }
    const rows: unknown[][] = [];
    const summary: Record<string, unknown> = {};
    for (const s of selectors) {
      const stepRatios: number[] = [];
      const rolloutRatios: number[] = [];
      const finals: number[] = [];
      for (const seed of seeds) {
        const random = curves.find((c) => c.variant === 'random' && c.seed === seed)!;
        const target = random.points[random.points.length - 1]!.accuracy;
        const base = reach(random, target)!;
        const c = curves.find((x) => x.variant === s && x.seed === seed)!;
        const hit = reach(c, target);
        if (hit) {
          stepRatios.push(hit.step / base.step);
          rolloutRatios.push(hit.rollouts / base.rollouts);
        }
        finals.push(c.points[c.points.length - 1]!.accuracy);
      }
      const mine = curves.filter((c) => c.variant === s);
      const row = {
        reached: `${stepRatios.length}/${seeds.length}`,
        steps: meanSd(stepRatios),
        rollouts: meanSd(rolloutRatios),
        final: meanSd(finals),
        effective: meanSd(mine.map((c) => c.effective)),
        seconds: meanSd(mine.map((c) => c.seconds)),
      };
      summary[s] = row;
      rows.push([
        s,
        row.reached,
        fmt(row.steps),
        fmt(row.rollouts),
        `${fmt(row.final, 1, 100)}%`,
        `${fmt(row.effective, 1, 100)}%`,
        row.seconds.m,
      ]);
    }
    if (values.json)
      process.stdout.write(`${JSON.stringify({ steps, every, seeds, summary, curves }, null, 2)}\n`);
    else {
      process.stdout.write(
        `${formatTable(['selector', 'reached', 'steps to random’s final acc ÷ random', 'rollouts ÷ random', 'final held-out acc', 'effective task ratio', 's/run'], rows)}\n`,
      );
      process.stdout.write(
        `(${seeds.length} seeds × ${steps} steps; held-out accuracy (greedy, 300 tasks) every ${every} steps; start ${(curves[0]!.points[0]!.accuracy * 100).toFixed(1)}%)\n`,
      );
    }
    return 0;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.exitCode = await learningBenchMain(process.argv.slice(2));
}
