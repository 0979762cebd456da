import { beforeAll, describe, expect, it } from 'vitest';
import type { Experience } from '../../src/core/experience.ts';
import { TinyPolicy } from '../../src/tiny/policy.ts';
import { PolicyGradientTrainer } from '../../src/tiny/policy-gradient-trainer.ts';

/**
 * Issue 42, through the whole built-in trainer: replayed rows (useCount > 1) whose stored behaviour
 * log-probs are far from the current policy are clipped away under `offPolicy.mode: clip` and keep
 * a gradient under `shaping`. Same policy weights, same batch, only the mode differs.
 */
beforeAll(async () => {
  await TinyPolicy.create({ hidden: 8 }).then((p) => p.dispose()); // selects the backend
});

async function batch(policy: TinyPolicy): Promise<Experience[]> {
  const [group] = await policy.generateBatch([{ prompt: '12+7=', n: 4, seed: 3 }]);
  return group!.map((g, j) => ({
    id: `e${j}`,
    taskId: 't',
    taskset: 'arithmetic',
    groupId: 'g',
    runIndex: j,
    stepIndex: 0,
    modelVersion: 0,
    exploreStep: 0,
    prompt: '12+7=',
    response: g.text,
    tokens: [...g.promptTokens, ...g.tokens],
    // A behaviour policy much less likely to say this than the current one: ρ = e^2 on every token.
    logprobs: g.logprobs.map((lp) => lp - 2),
    actionMask: [],
    promptLength: g.promptTokens.length,
    reward: 1,
    advantage: 1,
    truncated: false,
    info: {},
    useCount: 3,
    priority: 0,
    createdAt: 0,
    expert: false,
  }));
}

async function step(mode: 'clip' | 'shaping'): Promise<{ loss: number; gradNorm: number; clipFrac: number }> {
  const policy = await TinyPolicy.create({ hidden: 8, initSeed: 1 });
  const rows = await batch(policy);
  const trainer = new PolicyGradientTrainer(policy, { lr: 1e-3, offPolicy: { mode } });
  const m = await trainer.step(rows);
  trainer.dispose();
  policy.dispose();
  return { loss: m.loss!, gradNorm: m.grad_norm!, clipFrac: m.clip_frac! };
}

describe('PolicyGradientTrainer: replayed rows', () => {
  it('clip: ρ = e² > 1.2 with A > 0 binds the clip on every token (loss −1.2, no gradient)', async () => {
    const r = await step('clip');
    expect(r.loss).toBeCloseTo(-1.2, 5);
    expect(r.clipFrac).toBeCloseTo(1, 6);
    expect(r.gradNorm).toBe(0);
  });

  it('shaping: loss −e²/(e² + 0.1) per token, unclipped, with a gradient', async () => {
    const r = await step('shaping');
    const rho = Math.exp(2);
    expect(r.loss).toBeCloseTo(-rho / (rho + 0.1), 4);
    expect(r.clipFrac).toBe(0);
    expect(r.gradNorm).toBeGreaterThan(0);
  });
});
