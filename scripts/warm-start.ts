/**
 * Regenerates the shipped warm start, deterministically:
 *   npx node scripts/warm-start.ts [--out datasets/arithmetic/warm-start] [--steps N] [--snapshots 500,750]
 * Trains the tiny policy supervised by WARM START recipe (src/tiny/warm-start-recipe.ts), then prints
 * held-out accuracy per domain and per difficulty bucket (greedy and temperature 1) and saves
 * manifest.json + weights.bin. `--snapshots` also saves the policy at those steps under
 * <out>/../warm-start-snapshots/step-N (for tuning; not shipped).
 */
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { Task } from '../src/core/task.ts';
import { loadArithmeticDatasets } from '../src/explorer/tasks/arithmetic-datasets.ts';
import { selectBackend } from '../src/tiny/backend.ts';
import { evaluateAccuracy } from '../src/tiny/evaluate.ts';
import type { TinyPolicy } from '../src/tiny/policy.ts';
import { trainWarmStart, WarmStartRecipeSchema } from '../src/tiny/warm-start-recipe.ts';
import { saveTinyPolicy } from '../src/tiny/weights-file.ts';

const { values } = parseArgs({
  options: {
    out: { type: 'string', default: 'datasets/arithmetic/warm-start' },
    steps: { type: 'string' },
    snapshots: { type: 'string', default: '' },
    every: { type: 'string', default: '250' },
    'forget-rate': { type: 'string' },
  },
});
const out = resolve(values.out!);
const recipe = WarmStartRecipeSchema.parse({
  ...(values.steps ? { steps: Number(values.steps) } : {}),
  ...(values['forget-rate'] ? { forgetRate: Number(values['forget-rate']) } : {}),
});
const snapshots = new Set(values.snapshots!.split(',').filter(Boolean).map(Number));
const every = Number(values.every);
const backend = await selectBackend();
console.log(
  `backend: ${backend.backend} (tried: ${backend.tried.map((t) => `${t.name}: ${t.error}`).join('; ') || 'none'})`,
);
console.log(`recipe: ${JSON.stringify(recipe)}`);

const { heldout } = await loadArithmeticDatasets();
const exclude = new Set(heldout.map((t) => t.prompt!));
const bucketOf = (t: Task) => {
  const d = t.features.difficulty ?? 0;
  return d < 0.2 ? 'd<0.2' : d < 0.4 ? '0.2-0.4' : d < 0.6 ? '0.4-0.6' : 'd>=0.6';
};

async function report(policy: TinyPolicy) {
  const greedy = await evaluateAccuracy(policy, heldout, { temperature: 0 });
  const sampled = await evaluateAccuracy(policy, heldout, { temperature: 1, seed: 1, samples: 4 });
  const gB = await evaluateAccuracy(policy, heldout, { temperature: 0, groupBy: bucketOf });
  const sB = await evaluateAccuracy(policy, heldout, {
    temperature: 1,
    seed: 1,
    samples: 4,
    groupBy: bucketOf,
  });
  return { greedy, sampled, gB, sB };
}

const t0 = performance.now();
let ema = 0;
const policy = await trainWarmStart(recipe, exclude, async (p, pol) => {
  ema = p.step === 1 ? p.loss : 0.95 * ema + 0.05 * p.loss;
  if (p.step % every === 0 || p.step === recipe.steps) {
    const r = await report(pol);
    const secs = ((performance.now() - t0) / 1000).toFixed(0);
    console.log(
      `step ${p.step} (${secs}s) loss ${ema.toFixed(3)}  held-out greedy ${r.greedy.accuracy.toFixed(3)}  T=1 ${r.sampled.accuracy.toFixed(3)}`,
    );
  }
  if (snapshots.has(p.step))
    await saveTinyPolicy(pol, join(out, '..', 'warm-start-snapshots', `step-${p.step}`));
});
const secs = (performance.now() - t0) / 1000;
const r = await report(policy);
console.log(
  `\ntrained ${recipe.steps} steps in ${secs.toFixed(0)} s (${((secs * 1000) / recipe.steps).toFixed(0)} ms/step)`,
);
console.log('\nheld-out accuracy by domain      greedy   T=1 (4 samples)');
for (const [k, v] of Object.entries(r.greedy.groups)) {
  console.log(
    `  ${k.padEnd(12)} ${String(v.tasks).padStart(4)} tasks  ${v.accuracy.toFixed(2).padStart(6)}  ${r.sampled.groups[k]!.accuracy.toFixed(2).padStart(6)}`,
  );
}
console.log('held-out accuracy by difficulty');
for (const k of ['d<0.2', '0.2-0.4', '0.4-0.6', 'd>=0.6']) {
  const g = r.gB.groups[k];
  if (g)
    console.log(
      `  ${k.padEnd(12)} ${String(g.tasks).padStart(4)} tasks  ${g.accuracy.toFixed(2).padStart(6)}  ${r.sB.groups[k]!.accuracy.toFixed(2).padStart(6)}`,
    );
}
console.log(
  `  ${'all'.padEnd(12)} ${String(heldout.length).padStart(4)} tasks  ${r.greedy.accuracy.toFixed(3).padStart(6)}  ${r.sampled.accuracy.toFixed(3).padStart(6)}`,
);
const round = (x: number) => Math.round(x * 1e4) / 1e4;
const manifest = await saveTinyPolicy(policy, out, {
  madeBy: 'scripts/warm-start.ts',
  recipe: JSON.parse(JSON.stringify(recipe)),
  backend: backend.backend,
  heldout: {
    greedy: round(r.greedy.accuracy),
    sampledT1: round(r.sampled.accuracy),
    greedyByDomain: Object.fromEntries(
      Object.entries(r.greedy.groups).map(([k, v]) => [k, round(v.accuracy)]),
    ),
    greedyByDifficulty: Object.fromEntries(
      Object.entries(r.gB.groups).map(([k, v]) => [k, round(v.accuracy)]),
    ),
  },
});
console.log(`saved ${out} (sha256 ${manifest.sha256.slice(0, 12)}…)`);
