/**
 * Speed of the tiny policy and its trainer, per tf backend:
 *   npx node scripts/bench-tiny.ts [--reps 5] [--backends wasm,cpu]
 * Rows: sampling 32 prompts × 8 samples (generateBatch), and one PolicyGradientTrainer step on
 * 256 sequences, from the shipped warm start. The ratio column is each backend's time over the
 * first backend's (measured in the same run).
 */
import { parseArgs } from 'node:util';
import type { Experience } from '../src/core/experience.ts';
import { loadArithmeticDatasets } from '../src/explorer/tasks/arithmetic-datasets.ts';
import { selectBackend } from '../src/tiny/backend.ts';
import type { TfBackendName } from '../src/tiny/backend-name.ts';
import { PolicyGradientTrainer } from '../src/tiny/policy-gradient-trainer.ts';
import { loadWarmStart } from '../src/tiny/warm-start.ts';

const { values } = parseArgs({
  options: { reps: { type: 'string', default: '5' }, backends: { type: 'string', default: 'wasm,cpu' } },
});
const reps = Number(values.reps);
const { train } = await loadArithmeticDatasets();
const prompts = train.filter((_, i) => i % 75 === 0).slice(0, 32);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const rows: { backend: string; gen: number; train: number }[] = [];
for (const name of values.backends!.split(',') as TfBackendName[]) {
  await selectBackend({ prefer: name, env: {} });
  const policy = await loadWarmStart({ backend: name });
  const trainer = new PolicyGradientTrainer(policy, { lr: 1e-6 });
  const requests = prompts.map((t, i) => ({ prompt: t.prompt!, n: 8, temperature: 1, seed: i }));
  const genTimes: number[] = [];
  let gens = await policy.generateBatch(requests);
  for (let r = 0; r < reps; r++) {
    const t0 = performance.now();
    gens = await policy.generateBatch(requests);
    genTimes.push(performance.now() - t0);
  }
  const batch: Experience[] = gens.flatMap((group, gi) =>
    group.map((g, j) => ({
      id: `${gi}-${j}`,
      taskId: `${gi}`,
      taskset: 'arithmetic',
      groupId: `${gi}`,
      runIndex: j,
      stepIndex: 0,
      modelVersion: 0,
      exploreStep: 0,
      response: g.text,
      tokens: [...g.promptTokens, ...g.tokens],
      logprobs: g.logprobs,
      actionMask: [],
      promptLength: g.promptTokens.length,
      reward: 0,
      advantage: j % 2 === 0 ? 1 : -1,
      truncated: false,
      info: {},
      useCount: 0,
      priority: 0,
      createdAt: 0,
      expert: false,
    })),
  );
  await trainer.step(batch);
  const trainTimes: number[] = [];
  for (let r = 0; r < reps; r++) {
    const t0 = performance.now();
    await trainer.step(batch);
    trainTimes.push(performance.now() - t0);
  }
  rows.push({ backend: name, gen: median(genTimes), train: median(trainTimes) });
  trainer.dispose();
  policy.dispose();
}
const base = rows[0]!;
console.log(`median of ${reps} runs; sequences: ${prompts.length} prompts × 8 samples = 256`);
console.log('backend   generate 32×8 (ms)  ratio   train step 256 seqs (ms)  ratio');
for (const r of rows) {
  console.log(
    `${r.backend.padEnd(9)} ${r.gen.toFixed(1).padStart(18)}  ${(r.gen / base.gen).toFixed(2).padStart(5)}   ${r.train.toFixed(1).padStart(24)}  ${(r.train / base.train).toFixed(2).padStart(5)}`,
  );
}
