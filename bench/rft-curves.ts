// Used by bench/learning: run an RFT pipeline with config overrides and keep
// its held-out accuracy curve, rollout count and wall time.
import { dirname, join } from 'node:path';
import type { RftConfig } from '../src/lifecycle/run/rft-config.ts';
import { loadRftConfig, runRft } from '../src/lifecycle/run/rft-run.ts';
import type { StepRecord } from '../src/lifecycle/run/step-record.ts';

export interface Curve {
  variant: string;
  seed: number;
  points: Array<{ step: number; accuracy: number; rollouts: number; seconds: number }>;
  rollouts: number;
  seconds: number;
  effective: number;
}

export async function runCurve(
  pipeline: string,
  variant: string,
  seed: number,
  opts: { steps: number; every: number; dir: string; change: (c: RftConfig) => RftConfig },
): Promise<Curve> {
  const base = loadRftConfig(pipeline);
  const config = opts.change({
    ...base,
    seed,
    name: `${base.name}-${variant.replace(/[^A-Za-z0-9_-]/g, '_')}-${seed}`,
    ...(base.heldout ? { heldout: { ...base.heldout, every: opts.every } } : {}),
    lifecycle: { ...base.lifecycle, steps: opts.steps, checkpointEvery: opts.steps },
    monitors: [],
  });
  const t0 = Date.now();
  const r = await runRft(config, {
    baseDir: dirname(pipeline),
    dbDir: join(opts.dir, 'db'),
    runDir: join(opts.dir, `run-${variant}-${seed}`),
  });
  let rollouts = 0;
  let ms = 0;
  const points: Curve['points'] = [{ step: 0, accuracy: r.initialAccuracy ?? 0, rollouts: 0, seconds: 0 }];
  for (const h of r.history as StepRecord[]) {
    rollouts += h.rollouts;
    ms += h.stepMs;
    if (typeof h.accuracy === 'number')
      points.push({ step: h.step, accuracy: h.accuracy, rollouts, seconds: ms / 1000 });
  }
  const eff = r.history.map((h) => h.effectiveTaskRatio).filter(Number.isFinite);
  return {
    variant,
    seed,
    points,
    rollouts,
    seconds: (Date.now() - t0) / 1000,
    effective: eff.reduce((a, b) => a + b, 0) / Math.max(1, eff.length),
  };
}

/** The first evaluation point reaching `target`, or undefined. */
export function reach(curve: Curve, target: number): Curve['points'][number] | undefined {
  return curve.points.find((p) => p.step > 0 && p.accuracy >= target - 1e-9);
}

export function meanSd(xs: readonly number[]): { m: number; sd: number } {
  if (xs.length === 0) return { m: Number.NaN, sd: Number.NaN };
  const m = xs.reduce((a, b) => a + b, 0) / xs.length;
  const sd = Math.sqrt(xs.reduce((a, b) => a + (b - m) ** 2, 0) / Math.max(1, xs.length - 1));
  return { m, sd };
}

export const fmt = (v: { m: number; sd: number }, digits = 2, scale = 1) =>
  Number.isFinite(v.m) ? `${(v.m * scale).toFixed(digits)} ± ${(v.sd * scale).toFixed(digits)}` : '—';
