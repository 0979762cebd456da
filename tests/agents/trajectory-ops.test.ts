import { describe, expect, it } from 'vitest';
import type { Experience } from '../../src/core/experience.ts';
import { Rng } from '../../src/core/rng.ts';
import {
  multiStepGrpo,
  trajectoryAdvantage,
  trajectoryFilter,
} from '../../src/operators/experience/index.ts';
import type { OperatorContext, OperatorDefinition } from '../../src/operators/operator.ts';
import { episodeRow } from './helpers.ts';

const warnings: string[] = [];
const ctx: OperatorContext = { rng: new Rng(1), seed: 1, runId: 'r', warn: (m) => warnings.push(m) };
async function run(def: OperatorDefinition<Experience, unknown>, params: unknown, batch: Experience[]) {
  return def.create(def.params.parse(params)).process(batch, ctx);
}
const round = (xs: readonly number[] | undefined) => (xs ?? []).map((x) => Math.round(x * 1e4) / 1e4);

// Task A: one episode reaches the goal on its third turn, one fails after two; task B: a lone episode.
const e1 = episodeRow('e1', 's1:A', [
  { reward: 0, tokens: 2, calls: 1 },
  { reward: 0, tokens: 2, calls: 1, invalid: 1 },
  { reward: 1, tokens: 2 },
]);
const e2 = episodeRow('e2', 's1:A', [
  { reward: 0, tokens: 2, calls: 1 },
  { reward: 0, tokens: 2 },
]);
const e3 = episodeRow('e3', 's1:B', [
  { reward: 0.5, tokens: 1 },
  { reward: -0.25, tokens: 1 },
  { reward: 1, tokens: 1 },
]);

describe('trajectory operators', () => {
  it('multi_step_grpo: the outcome normalised within the task group, discounted back over the turns, on model tokens only', async () => {
    const res = await run(multiStepGrpo as OperatorDefinition<Experience, unknown>, { gamma: 0.5, eps: 0 }, [
      e1,
      e2,
    ]);
    expect(res.dropped).toEqual([]);
    const [a, b] = res.rows;
    expect(a!.info.turn_advantages).toEqual([0.25, 0.5, 1]);
    expect(a!.advantages).toEqual([0.25, 0.25, 0, 0.5, 0.5, 0, 1, 1]);
    expect(b!.advantages).toEqual([-0.5, -0.5, 0, -1, -1]);
    expect(a!.advantage).toBe(0.25);
    expect(a!.info.advantage_fn).toBe('multi_step_grpo');
  });

  it('trajectory_advantage per_step: discounted returns from each step on', async () => {
    const res = await run(
      trajectoryAdvantage as OperatorDefinition<Experience, unknown>,
      { reward: 'per_step', gamma: 0.5, baseline: 'none', stdNormalize: false },
      [e3],
    );
    // G2 = 1, G1 = −0.25 + 0.5·1 = 0.25, G0 = 0.5 + 0.5·0.25 = 0.625.
    expect(res.rows[0]!.info.turn_advantages).toEqual([0.625, 0.25, 1]);
    expect(res.rows[0]!.advantages).toEqual([0.625, 0, 0.25, 0, 1]);
    // With the group baseline: the mean of the pooled returns is subtracted.
    const g = await run(
      trajectoryAdvantage as OperatorDefinition<Experience, unknown>,
      { reward: 'per_step', gamma: 0.5, stdNormalize: false },
      [e3],
    );
    expect(round(g.rows[0]!.info.turn_advantages as number[])).toEqual([0, -0.375, 0.375]);
  });

  it('rows that are no agent episode, or whose reward is not finite, are dropped with the reason', async () => {
    const plain = { ...e2, id: 'plain', info: {} };
    const nan = { ...e1, id: 'nan', reward: Number.NaN };
    const res = await run(trajectoryAdvantage as OperatorDefinition<Experience, unknown>, {}, [plain, nan]);
    expect(res.rows).toEqual([]);
    expect(res.dropped.map((d) => [d.row.id, d.reason])).toEqual([
      ['plain', 'experience plain has no info.trajectory (not an agent episode)'],
      ['nan', 'reward is NaN: no advantage can be computed'],
    ]);
  });

  it('trajectory_filter: too many turns, too many tokens, no tool used, invalid-call ratio', async () => {
    const batch = [e1, e2, e3];
    const reasons = async (params: unknown) =>
      (await run(trajectoryFilter as OperatorDefinition<Experience, unknown>, params, batch)).dropped.map(
        (d) => `${d.row.id}: ${d.reason}`,
      );
    expect(await reasons({ maxTurns: 2 })).toEqual([
      'e1: trajectory has 3 turns > maxTurns 2',
      'e3: trajectory has 3 turns > maxTurns 2',
    ]);
    expect(await reasons({ maxTokens: 8 })).toEqual(['e1: trajectory has 10 tokens > maxTokens 8']);
    expect(await reasons({ requireToolUse: true })).toEqual(['e3: trajectory used no tool']);
    expect(await reasons({ maxInvalidCallRatio: 0.4 })).toEqual([
      'e1: invalid-call ratio 0.5 (1 of 2) > maxInvalidCallRatio 0.4',
    ]);
  });
});
