// bench/replay: experience replay on the real tiny learner, against not replaying at all.
// Every variant explores 32 tasks × 8 rollouts per step (pipelines/arithmetic-replay.yaml);
// "no replay" trains on each experience once (FIFO), the replay variants train on twice as many
// experiences per step drawn through the version_priority or the advantage_priority sampler
// (≤ 3 uses each).
// Reported: final held-out accuracy, accuracy gained per 1,000 rollouts and per second of wall time.
// Run: npx winnow bench replay [--seeds 3] [--steps 60]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseCommand } from '../src/cli/command-spec.ts';
import { formatTable } from '../src/cli/table.ts';
import type { RftConfig } from '../src/lifecycle/run/rft-config.ts';
import { REPLAY_BENCH_SPEC } from './bench-specs.ts';
import { type Curve, fmt, meanSd, runCurve } from './rft-curves.ts';

const PIPELINE = resolve(import.meta.dirname, '..', 'pipelines', 'arithmetic-replay.yaml');
const STEP_ROLLOUTS = 32 * 8;

const VARIANTS: Record<string, (c: RftConfig) => RftConfig> = {
  'no replay (fifo, each once)': (c) => ({
    ...c,
    buffer: { ...c.buffer, sampler: { type: 'fifo', params: {} } },
    lifecycle: { ...c.lifecycle, trainBatch: STEP_ROLLOUTS },
  }),
  'version_priority replay (decay 0.5, ≤3 uses)': (c) => ({
    ...c,
    buffer: { ...c.buffer, sampler: { type: 'version_priority', params: { decay: 0.5, maxUses: 3 } } },
    lifecycle: { ...c.lifecycle, trainBatch: 2 * STEP_ROLLOUTS },
  }),
  'advantage_priority replay (α 0.6, β 0.4, ≤3 uses)': (c) => ({
    ...c,
    buffer: {
      ...c.buffer,
      sampler: { type: 'advantage_priority', params: { alpha: 0.6, beta: 0.4, maxUses: 3 } },
    },
    lifecycle: { ...c.lifecycle, trainBatch: 2 * STEP_ROLLOUTS },
  }),
};

export async function replayBenchMain(argv: string[]): Promise<number> {
  const parsed = parseCommand(REPLAY_BENCH_SPEC, argv);
  if (!parsed) return 0;
  const { values } = parsed;
  const seeds = Array.from({ length: values.seeds }, (_, i) => i + 1);
  const { steps, every } = values;
  const dir = mkdtempSync(join(tmpdir(), 'winnow-bench-replay-'));
  try {
    const curves: Curve[] = [];
    for (const seed of seeds) {
      for (const [name, change] of Object.entries(VARIANTS)) {
        process.stderr.write(`seed ${seed}: ${name}…\n`);
        curves.push(await runCurve(PIPELINE, name, seed, { steps, every, dir, change }));
      }
    }
    const rows: unknown[][] = [];
    const summary: Record<string, unknown> = {};
    const baseline = meanSd(
      curves
        .filter((c) => c.variant === Object.keys(VARIANTS)[0])
        .map((c) => c.points[c.points.length - 1]!.accuracy - c.points[0]!.accuracy),
    );
    for (const name of Object.keys(VARIANTS)) {
      const mine = curves.filter((c) => c.variant === name);
      const gain = mine.map((c) => c.points[c.points.length - 1]!.accuracy - c.points[0]!.accuracy);
      const row = {
        final: meanSd(mine.map((c) => c.points[c.points.length - 1]!.accuracy)),
        gain: meanSd(gain),
        perKiloRollouts: meanSd(mine.map((c, i) => (gain[i]! * 1000) / c.rollouts)),
        perSecond: meanSd(mine.map((c, i) => gain[i]! / c.points[c.points.length - 1]!.seconds)),
        seconds: meanSd(mine.map((c) => c.points[c.points.length - 1]!.seconds)),
      };
      summary[name] = row;
      rows.push([
        name,
        `${fmt(row.final, 1, 100)}%`,
        `${fmt(row.gain, 1, 100)} pts`,
        row.gain.m / baseline.m,
        `${fmt(row.perKiloRollouts, 2, 100)} pts`,
        `${fmt(row.perSecond, 2, 100)} pts`,
        row.seconds.m,
      ]);
    }
    if (values.json) process.stdout.write(`${JSON.stringify({ steps, seeds, summary, curves }, null, 2)}\n`);
    else {
      process.stdout.write(
        `${formatTable(['variant', 'final held-out acc', 'gain', 'gain ÷ no replay', 'gain / 1k rollouts', 'gain / s', 'step time s'], rows)}\n`,
      );
      process.stdout.write(
        `(${seeds.length} seeds × ${steps} steps × ${STEP_ROLLOUTS} rollouts; start ${(curves[0]!.points[0]!.accuracy * 100).toFixed(1)}%; time is the loop's step time, evaluation excluded)\n`,
      );
    }
    return 0;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.exitCode = await replayBenchMain(process.argv.slice(2));
}
