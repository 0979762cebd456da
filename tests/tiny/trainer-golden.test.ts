import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Experience } from '../../src/core/experience.ts';
import { DpoTrainer } from '../../src/tiny/dpo-trainer.ts';
import { TinyPolicy } from '../../src/tiny/policy.ts';
import { PolicyGradientTrainer } from '../../src/tiny/policy-gradient-trainer.ts';
import { SupervisedTrainer } from '../../src/tiny/supervised-trainer.ts';
import { tinyRow } from './rows.ts';

// Golden weights of the three tiny trainers over a few steps: the shared update loop
// (src/tiny/trainer-loop.ts) must leave every weight bit for bit as it was before it was shared.

beforeAll(async () => {
  await TinyPolicy.create({ hidden: 8 }).then((p) => p.dispose()); // selects the backend
});

/** sha256 of every weight's float32 bytes, in variable order (first 16 hex digits). */
function weightsHash(policy: TinyPolicy): string {
  const h = createHash('sha256');
  for (const w of policy.getWeights()) h.update(new Uint8Array(w.buffer, w.byteOffset, w.byteLength));
  return h.digest('hex').slice(0, 16);
}

const GROUPS: [prompt: string, right: string, wrong: [string, string]][] = [
  ['12+7=', '19', ['91', '18']],
  ['3*4=', '12', ['7', '13']],
  ['45-9=', '36', ['54', '3']],
];

/** Rows with rewards and alternating advantages; the last group's right answer is an expert row. */
function rows(step: number): Experience[] {
  return GROUPS.flatMap(([prompt, right, wrong], g) =>
    [right, ...wrong].map((response, k) =>
      tinyRow(`s${step}-g${g}-${k}`, prompt, response, {
        groupId: `g${g}-s${step}`,
        taskId: `t${g}`,
        runIndex: k,
        reward: k === 0 ? 1 : 0,
        advantage: k === 0 ? 1 : -0.5,
        expert: g === 2 && k === 0,
      }),
    ),
  );
}

describe('tiny trainers: golden weights after three steps', () => {
  it('policy_gradient (micro-batches, KL to a reference, entropy, expert mix)', async () => {
    const policy = await TinyPolicy.create({ hidden: 8, initSeed: 11 });
    const trainer = new PolicyGradientTrainer(policy, {
      lr: 0.01,
      klCoef: 0.05,
      entropyCoef: 0.01,
      microBatchSize: 4,
      expertWeight: 0.3,
    });
    const seen: string[] = [];
    for (let s = 0; s < 3; s++) {
      const m = await trainer.step(rows(s));
      seen.push(`${weightsHash(policy)} ${m.loss} ${m.grad_norm}`);
    }
    expect(seen).toEqual(PG_GOLDEN);
    trainer.dispose();
    policy.dispose();
  });

  it('dpo', async () => {
    const policy = await TinyPolicy.create({ hidden: 8, initSeed: 12 });
    const trainer = new DpoTrainer(policy, { lr: 0.01, beta: 0.2 });
    const seen: string[] = [];
    for (let s = 0; s < 3; s++) {
      const m = await trainer.step(rows(s).map((e) => ({ ...e, expert: false })));
      seen.push(`${weightsHash(policy)} ${m.loss} ${m.grad_norm}`);
    }
    expect(seen).toEqual(DPO_GOLDEN);
    trainer.dispose();
    policy.dispose();
  });

  it('supervised', async () => {
    const policy = await TinyPolicy.create({ hidden: 8, initSeed: 13 });
    const trainer = new SupervisedTrainer(policy, { lr: 0.01, maxGradNorm: 0.5 });
    const seen: string[] = [];
    for (let s = 0; s < 3; s++) {
      const m = trainer.step(GROUPS.map(([prompt, right]) => ({ prompt, completion: right })));
      seen.push(`${weightsHash(policy)} ${m.loss} ${m.gradNorm}`);
    }
    expect(seen).toEqual(SFT_GOLDEN);
    trainer.dispose();
    policy.dispose();
  });
});

// weights hash, loss, grad norm after each step (recorded before the loop was shared)
const PG_GOLDEN = [
  '91335be8ff838343 0.9312907159328461 0.23629160225391388',
  'dcb1b157fbfc0abe 0.9098208956420422 0.22307290136814117',
  '9bd57bd592ba6621 0.8903737664222717 0.21201081573963165',
];
const DPO_GOLDEN = [
  '14580124eaa1ecb0 0.6931471824645996 0.13577182590961456',
  'db59f3e8f8b60515 0.6798524260520935 0.12985655665397644',
  '0620272b959a19ff 0.6673188805580139 0.12551695108413696',
];
const SFT_GOLDEN = [
  '18b77f6ac1eeeca2 2.859997272491455 0.7149253487586975',
  'df57641337d48de6 2.801938772201538 0.6719274520874023',
  '3277af1e037be846 2.748568296432495 0.6356219053268433',
];
