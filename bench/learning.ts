// bench/learning: task selection on the real tiny learner. The arithmetic RFT loop
// (pipelines/arithmetic-bots.yaml) is run with random, BOTS and the shared-ability successor over
// several seeds; held-out accuracy is measured every few steps, and each selector's steps and
// rollouts to reach random's final accuracy are reported relative to random (the baseline run here).
// Run: npx winnow bench learning [--seeds 3] [--steps 80] [--selectors random,bots,shared_ability]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { formatTable } from '../src/cli/table.ts';
import { loadRftConfig, runRft } from '../src/lifecycle/rft-run.ts';
import type { StepRecord } from '../src/lifecycle/rft-runner.ts';

const PIPELINE = resolve(import.meta.dirname, '..', 'pipelines', 'arithmetic-bots.yaml');

const SELECTORS: Record<string, { type: string; params: Record<string, unknown> }> = {
  random: { type: 'random', params: {} },
  bots: { type: 'bots', params: { m: 8, lambda: 0.1, rho: 0, target: 0.5 } },
  shared_ability: { type: 'shared_ability', params: {} },
};

interface Curve {
  selector: string;
  seed: number;
  points: Array<{ step: number; accuracy: number }>;
  rolloutsPerStep: number;
  seconds: number;
  effective: number;
}

async function runOne(
  selector: string,
  seed: number,
  steps: number,
  every: number,
  dir: string,
): Promise<Curve> {
  const base = loadRftConfig(PIPELINE);
  const config = {
    ...base,
    seed,
    name: `learning-${selector}-${seed}`,
    selector: SELECTORS[selector]!,
    heldout: base.heldout ? { ...base.heldout, every } : undefined,
    buffer: { ...base.buffer, table: `exp_${selector}_${seed}` },
    lifecycle: { ...base.lifecycle, steps, checkpointEvery: steps },
    report: { html: false },
  };
  const r = await runRft(config, {
    baseDir: dirname(PIPELINE),
    dbDir: join(dir, 'db'),
    runDir: join(dir, `run-${selector}-${seed}`),
  });
  const points = [
    { step: 0, accuracy: r.initialAccuracy ?? 0 },
    ...r.history
      .filter((h): h is StepRecord & { accuracy: number } => typeof h.accuracy === 'number')
      .map((h) => ({ step: h.step, accuracy: h.accuracy })),
  ];
  const eff = r.history.map((h) => h.effectiveTaskRatio).filter(Number.isFinite);
  return {
    selector,
    seed,
    points,
    rolloutsPerStep: config.explorer.batchTasks * config.explorer.repeat,
    seconds: r.durationMs / 1000,
    effective: eff.reduce((a, b) => a + b, 0) / Math.max(1, eff.length),
  };
}

/** First evaluated step whose accuracy reaches `target` (Infinity if never). */
function stepsTo(curve: Curve, target: number): number {
  return (
    curve.points.find((p) => p.step > 0 && p.accuracy >= target - 1e-9)?.step ?? Number.POSITIVE_INFINITY
  );
}

const meanSd = (xs: number[]) => {
  const m = xs.reduce((a, b) => a + b, 0) / xs.length;
  const sd = Math.sqrt(xs.reduce((a, b) => a + (b - m) ** 2, 0) / Math.max(1, xs.length - 1));
  return { m, sd };
};

export async function learningBenchMain(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      seeds: { type: 'string', default: '3' },
      steps: { type: 'string', default: '80' },
      every: { type: 'string', default: '5' },
      selectors: { type: 'string', default: 'random,bots,shared_ability' },
      json: { type: 'boolean', default: false },
    },
  });
  const seeds = Array.from({ length: Number(values.seeds) }, (_, i) => i + 1);
  const steps = Number(values.steps);
  const every = Number(values.every);
  const selectors = values.selectors.split(',');
  if (!selectors.includes('random')) selectors.unshift('random');
  const dir = mkdtempSync(join(tmpdir(), 'winnow-bench-learning-'));
  try {
    const curves: Curve[] = [];
    for (const seed of seeds) {
      for (const s of selectors) {
        process.stderr.write(`seed ${seed}: ${s}…\n`);
        curves.push(await runOne(s, seed, steps, every, dir));
      }
    }
    const rows: unknown[][] = [];
    const summary: Record<string, unknown> = {};
    for (const s of selectors) {
      const ratios: number[] = [];
      const finals: number[] = [];
      const effs: number[] = [];
      const secs: number[] = [];
      let reached = 0;
      for (const seed of seeds) {
        const random = curves.find((c) => c.selector === 'random' && c.seed === seed)!;
        const target = random.points[random.points.length - 1]!.accuracy;
        const base = stepsTo(random, target);
        const c = curves.find((x) => x.selector === s && x.seed === seed)!;
        const k = stepsTo(c, target);
        if (Number.isFinite(k)) reached++;
        ratios.push(Number.isFinite(k) ? k / base : Number.NaN);
        finals.push(c.points[c.points.length - 1]!.accuracy);
        effs.push(c.effective);
        secs.push(c.seconds);
      }
      const ok = ratios.filter(Number.isFinite);
      const r = ok.length > 0 ? meanSd(ok) : { m: Number.NaN, sd: Number.NaN };
      const f = meanSd(finals);
      const e = meanSd(effs);
      const start = curves.find((c) => c.selector === s)!.points[0]!.accuracy;
      rows.push([
        s,
        `${reached}/${seeds.length}`,
        Number.isFinite(r.m) ? `${r.m.toFixed(2)} ± ${r.sd.toFixed(2)}` : 'never',
        `${(start * 100).toFixed(1)}%`,
        `${(f.m * 100).toFixed(1)} ± ${(f.sd * 100).toFixed(1)}%`,
        `${(e.m * 100).toFixed(1)}%`,
        meanSd(secs).m,
      ]);
      summary[s] = {
        reached,
        stepsRatio: r.m,
        stepsRatioSd: r.sd,
        rolloutsRatio: r.m,
        finalAccuracy: f.m,
        finalSd: f.sd,
        effectiveTaskRatio: e.m,
      };
    }
    if (values.json)
      process.stdout.write(`${JSON.stringify({ steps, every, seeds, summary, curves }, null, 2)}\n`);
    else {
      process.stdout.write(
        `${formatTable(['selector', 'reached', 'steps (and rollouts) to random’s final acc, ÷ random', 'start', 'final held-out acc', 'effective task ratio', 's/run'], rows)}\n`,
      );
      process.stdout.write(
        `(${seeds.length} seeds × ${steps} steps × ${curves[0]!.rolloutsPerStep} rollouts/step; held-out accuracy every ${every} steps; rollouts per step are equal, so the rollout ratio equals the step ratio)\n`,
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
