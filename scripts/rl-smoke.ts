/**
 * A minimal GRPO loop on the tiny policy, for tuning the built-in trainer:
 *   npx node scripts/rl-smoke.ts [--seed 1] [--steps 30] [--tasks 32] [--group 8] [--lr 1e-3]
 *                                [--from datasets/arithmetic/warm-start] [--eval-every 5]
 * Each step: pick `tasks` training tasks with a seeded Rng, sample `group` completions each at
 * temperature 1, reward = exact match, advantage = (r − mean)/(std + 1e-6) per group, drop groups
 * whose rewards are all equal, one trainer step. Prints held-out accuracy (greedy and T=1) as it goes.
 */
import { parseArgs } from 'node:util';
import { Rng } from '../src/core/rng.ts';
import { loadArithmeticDatasets } from '../src/explorer/tasks/arithmetic-datasets.ts';
import { evaluateAccuracy } from '../src/tiny/evaluate.ts';
import { PolicyGradientTrainer } from '../src/tiny/policy-gradient-trainer.ts';
import { warmStartDir } from '../src/tiny/warm-start.ts';
import { loadTinyPolicy } from '../src/tiny/weights-file.ts';
import { grpoStep } from '../tests/tiny/grpo-loop.ts';

const { values } = parseArgs({
  options: {
    seed: { type: 'string', default: '1' },
    steps: { type: 'string', default: '30' },
    tasks: { type: 'string', default: '32' },
    group: { type: 'string', default: '8' },
    lr: { type: 'string', default: '1e-3' },
    clip: { type: 'string', default: '0.2' },
    agg: { type: 'string', default: 'token-mean' },
    from: { type: 'string' },
    'eval-every': { type: 'string', default: '5' },
    'eval-samples': { type: 'string', default: '4' },
    temperature: { type: 'string', default: '1' },
    kl: { type: 'string', default: '0' },
    entropy: { type: 'string', default: '0' },
    quiet: { type: 'boolean', default: false },
    'max-difficulty': { type: 'string', default: '1' },
    beta2: { type: 'string', default: '0.999' },
    'keep-equal': { type: 'boolean', default: false },
  },
});
const seed = Number(values.seed);
const steps = Number(values.steps);
const policy = await loadTinyPolicy(values.from ?? warmStartDir());
const trainer = await PolicyGradientTrainer.create(policy, {
  lr: Number(values.lr),
  clipLow: Number(values.clip),
  lossAgg: values.agg as 'token-mean',
  klCoef: Number(values.kl),
  entropyCoef: Number(values.entropy),
  temperature: Number(values.temperature),
  beta2: Number(values.beta2),
});
const datasets = await loadArithmeticDatasets();
const heldout = datasets.heldout;
// Optional curriculum: practise only tasks up to this difficulty (held-out stays whole).
const train = datasets.train.filter((t) => (t.features.difficulty ?? 0) <= Number(values['max-difficulty']));
// Same stream as tests/tiny/learning.test.ts, so the same settings reproduce it exactly.
const rng = new Rng(`grpo:${seed}`);
const evalEvery = Number(values['eval-every']);

const evalSamples = Number(values['eval-samples']);
const reach = Number(values['max-difficulty']) < 1 ? Number(values['max-difficulty']) : 0.4;
async function evaluate(label: string) {
  const g = await evaluateAccuracy(policy, heldout, { temperature: 0 });
  const s = await evaluateAccuracy(policy, heldout, { temperature: 1, seed: 12345, samples: evalSamples });
  // The part of the held-out set within the practised difficulty range.
  const inRange = heldout.map((t) => (t.features.difficulty ?? 0) <= reach);
  const sub = (r: typeof g) =>
    r.perTask.filter((_, i) => inRange[i]).reduce((a, b) => a + b, 0) / inRange.filter(Boolean).length;
  console.log(
    `${label.padEnd(10)} held-out greedy ${g.accuracy.toFixed(3)}  T=1 ${s.accuracy.toFixed(3)}   ` +
      `(difficulty <= ${reach}: greedy ${sub(g).toFixed(3)}  T=1 ${sub(s).toFixed(3)})`,
  );
  return { greedy: g.accuracy, sampled: s.accuracy, g, s, subGreedy: sub(g), subSampled: sub(s) };
}

const before = await evaluate('start');
let genMs = 0;
let trainMs = 0;
const t0 = performance.now();
for (let step = 1; step <= steps; step++) {
  const r = await grpoStep({
    policy,
    trainer,
    train,
    rng,
    tasksPerStep: Number(values.tasks),
    group: Number(values.group),
    temperature: Number(values.temperature),
    keepEqualGroups: values['keep-equal'],
  });
  genMs += r.genMs;
  trainMs += r.trainMs;
  if (!values.quiet)
    console.log(
      `step ${String(step).padStart(3)}  reward ${r.rewardMean.toFixed(3)}  kept groups ${r.keptGroups}/${r.groups}  ` +
        `loss ${(r.metrics.loss ?? 0).toFixed(4)}  entropy ${(r.metrics.entropy ?? 0).toFixed(3)}  grad ${(r.metrics.grad_norm ?? 0).toFixed(3)}  ` +
        `gen ${r.genMs.toFixed(0)} ms  train ${r.trainMs.toFixed(0)} ms`,
    );
  if (step % evalEvery === 0 || step === steps) await evaluate(`step ${step}`);
}
const secs = (performance.now() - t0) / 1000;
const after = await evaluate('end');
console.log(
  `\n${steps} steps in ${secs.toFixed(1)} s (${(steps / secs).toFixed(2)} steps/s; per step: generate ${(genMs / steps).toFixed(0)} ms, train ${(trainMs / steps).toFixed(0)} ms)`,
);
console.log(
  `held-out greedy ${before.greedy.toFixed(3)} → ${after.greedy.toFixed(3)} (${((after.greedy - before.greedy) * 100).toFixed(1)} points); ` +
    `T=1 ${before.sampled.toFixed(3)} → ${after.sampled.toFixed(3)} (${((after.sampled - before.sampled) * 100).toFixed(1)} points)`,
);
console.log(
  `difficulty <= ${reach}: greedy ${before.subGreedy.toFixed(3)} → ${after.subGreedy.toFixed(3)} (${((after.subGreedy - before.subGreedy) * 100).toFixed(1)} points); ` +
    `T=1 ${before.subSampled.toFixed(3)} → ${after.subSampled.toFixed(3)} (${((after.subSampled - before.subSampled) * 100).toFixed(1)} points)`,
);
console.log('by domain       greedy before → after   T=1 before → after');
for (const [k, v] of Object.entries(before.g.groups)) {
  const a = after.g.groups[k]!;
  console.log(
    `  ${k.padEnd(12)} ${v.accuracy.toFixed(2)} → ${a.accuracy.toFixed(2)}        ${before.s.groups[k]!.accuracy.toFixed(2)} → ${after.s.groups[k]!.accuracy.toFixed(2)}`,
  );
}
