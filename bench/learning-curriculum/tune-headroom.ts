// Tuning probe for the `headroom` selector on the real learner (tuning seeds only: 1–5).
// Each entry runs until it has spent random's rollouts (at most `--steps` updates, default 120 as in the bench), as
// the protocol's runs do; the AUC is the mean held-out accuracy over rollouts 0..B, B = random's
// rollouts after 40 updates on the same seed (a curve that ends early is carried forward flat).
// Run: node bench/learning-curriculum/tune-headroom.ts --seeds 1,2,3 --out FILE name='{"type":…}' …
import { appendFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { loadTaskFile } from '../../src/explorer/tasks/arithmetic-datasets.ts';
import { taskViewFromTasks } from '../../src/selectors/task-view.ts';
import { type CurvePoint, type LearnerSettings, runLearner } from './learner.ts';
import { BENCH_LEARNERS, type BenchLearnerName } from './learners.ts';
import { curriculumLineup } from './lineup.ts';
import type { CurriculumSelectorName } from './spec.ts';

/** Mean accuracy over rollouts [0, budget] (trapezoids; flat after the last point). */
export function accuracyAuc(points: readonly CurvePoint[], budget: number): number {
  let area = 0;
  for (let i = 1; i < points.length; i++) {
    const a = points[i - 1]!;
    const b = points[i]!;
    if (a.rollouts >= budget) break;
    const end = Math.min(b.rollouts, budget);
    const accEnd =
      a.accuracy + ((b.accuracy - a.accuracy) * (end - a.rollouts)) / (b.rollouts - a.rollouts || 1);
    area += ((a.accuracy + accEnd) / 2) * (end - a.rollouts);
  }
  const last = points[points.length - 1]!;
  if (last.rollouts < budget) area += last.accuracy * (budget - last.rollouts);
  return area / budget;
}

/** Accuracy at rollout budget b (the last evaluation at or before b). */
export function accuracyAt(points: readonly CurvePoint[], budget: number): number {
  let acc = points[0]!.accuracy;
  for (const p of points) if (p.rollouts <= budget) acc = p.accuracy;
  return acc;
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    seeds: { type: 'string', default: '1,2,3,4,5' },
    steps: { type: 'string', default: '120' },
    out: { type: 'string', default: '/tmp/tune-headroom.jsonl' },
    learner: { type: 'string', default: 'curriculum' },
    report: { type: 'boolean', default: false },
  },
});
const seeds = values.seeds.split(',').map(Number);
// Report seeds (6 and up) only with --report, once the defaults are fixed.
if (seeds.some((s) => s >= 6) !== values.report)
  throw new Error('tuning seeds are 1–5; report seeds (≥ 6) need --report');
const learner = BENCH_LEARNERS[values.learner as BenchLearnerName];
const lineup = curriculumLineup(0.5, 0.2, learner.orderFeature);
const entries = positionals.map((arg) => {
  const eq = arg.indexOf('=');
  const name = eq < 0 ? arg : arg.slice(0, eq);
  if (eq < 0) return { name, recipe: lineup[name as CurriculumSelectorName].recipe };
  return { name, recipe: { config: JSON.parse(arg.slice(eq + 1)) } };
});
const base: LearnerSettings = {
  steps: 40,
  trainGroups: 16,
  batchTasks: 16,
  repeat: 8,
  maxRounds: 8,
  every: 4,
  lr: 0.003,
  oracleEvery: 2,
  maxSteps: Number(values.steps),
};
const [train, heldout] = await Promise.all([
  loadTaskFile(`${learner.data}/train.jsonl`),
  loadTaskFile(`${learner.data}/heldout.jsonl`),
]);
const view = taskViewFromTasks(train);
const inputs = { train, heldout, load: learner.load };
for (const seed of seeds) {
  const random = await runLearner('random', { config: { type: 'random' } }, view, seed, inputs, base);
  const budget = random.rollouts;
  const row = (name: string, points: CurvePoint[], seconds: number, picked: Record<string, number> = {}) => ({
    picked,
    seed,
    name,
    budget,
    auc: accuracyAuc(points, budget),
    at25: accuracyAt(points, budget / 4),
    at50: accuracyAt(points, budget / 2),
    at100: accuracyAt(points, budget),
    seconds,
    points: points.map((p) => [p.rollouts, p.accuracy, p.updates]),
    levels: points.map((p) => p.levels),
  });
  appendFileSync(values.out, `${JSON.stringify(row('random', random.points, random.seconds))}\n`);
  for (const e of entries) {
    const c = await runLearner(e.name, e.recipe, view, seed, inputs, base, budget);
    const r = row(e.name, c.points, c.seconds, c.picked);
    appendFileSync(values.out, `${JSON.stringify(r)}\n`);
    process.stderr.write(
      `seed ${seed} ${e.name}: auc ${(r.auc * 100).toFixed(2)} vs random ${(row('random', random.points, 0).auc * 100).toFixed(2)}\n`,
    );
  }
}
