// Makes datasets/arithmetic/tool-start: the shipped warm start taught, by a few supervised steps,
// to call the calculator (answer '=') on a random ~fifth of prompts, whatever the prompt — and
// otherwise to give its own greedy answers (self-distillation, so its arithmetic stays as it was).
// RL then has a call action to explore; when to call is what it must learn (bench/agents-tools.ts).
// Run: npx node bench/agents-tool-start.ts [outDir]
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Rng } from '../src/core/rng.ts';
import { SupervisedTrainer } from '../src/tiny/supervised-trainer.ts';
import { loadWarmStart } from '../src/tiny/warm-start.ts';
import { saveTinyPolicy } from '../src/tiny/weights-file.ts';

const ROOT = join(import.meta.dirname, '..');
export const CALL_SHARE = 0.2;
const STEPS = 120;
const BATCH = 64;
const SEED = 7;

interface Row {
  prompt: string;
  answer: string;
}

export async function makeToolStart(outDir: string): Promise<{ callRate: number }> {
  const rows = readFileSync(join(ROOT, 'datasets/arithmetic/train.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Row);
  const policy = await loadWarmStart();
  // The warm start's own greedy answers, fixed before any update.
  const greedy = (
    await policy.generateBatch(rows.map((r) => ({ prompt: r.prompt, n: 1, temperature: 0 })))
  ).map((g) => g[0]!.text);
  const trainer = new SupervisedTrainer(policy, { lr: 1e-2 });
  const rng = new Rng(SEED);
  for (let s = 0; s < STEPS; s++) {
    const batch = Array.from({ length: BATCH }, () => {
      const i = rng.int(rows.length);
      return { prompt: rows[i]!.prompt, completion: rng.float() < CALL_SHARE ? '=' : greedy[i]! };
    });
    trainer.step(batch);
  }
  const sample = rows.slice(0, 400);
  const gens = await policy.generateBatch(
    sample.map((r, i) => ({ prompt: r.prompt, n: 4, temperature: 1, seed: i })),
  );
  const calls = gens.flat().filter((g) => g.text.startsWith('=')).length;
  await saveTinyPolicy(policy, outDir, {
    madeBy: 'bench/agents-tool-start.ts',
    callShare: CALL_SHARE,
    steps: STEPS,
  });
  policy.dispose();
  return { callRate: calls / (sample.length * 4) };
}

if (import.meta.main) {
  const out = process.argv[2] ?? join(ROOT, 'datasets/arithmetic/tool-start');
  const { callRate } = await makeToolStart(out);
  console.log(`wrote ${out}: calls the calculator on ${(callRate * 100).toFixed(1)}% of sampled answers`);
}
