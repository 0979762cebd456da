import { describe, expect, it } from 'vitest';
import {
  collectTaskRewards,
  computeTaskPassRates,
  lengthPenalty,
  passRate,
  rewardShaping,
} from '../../../src/operators/experience/index.ts';
import { batchOf, ctx, exp, r6, run } from './helpers.ts';

describe('reward_shaping', () => {
  const rows = () => [
    exp({ groupId: 'g', runIndex: 0, reward: 1, info: { fmt: 0.5 } }),
    exp({ groupId: 'g', runIndex: 1, reward: 2, info: { judge: { score: 4 } } }),
    exp({ groupId: 'g', runIndex: 2, reward: 3, info: { fmt: 'bad' } }),
    exp({ groupId: 'g', runIndex: 3, reward: 4, info: { fmt: 0 } }),
    exp({ groupId: 'g', runIndex: 4, reward: 5, info: { fmt: true } }),
  ];

  it('applies each op with the weight', async () => {
    const row = [exp({ groupId: 'g', reward: 2, info: { fmt: 0.5 } })];
    const out = async (op: string) =>
      (await run(rewardShaping, { stat: 'fmt', op, weight: 2 }, row)).rows[0]!.reward;
    expect(await out('add')).toBe(3);
    expect(await out('sub')).toBe(1);
    expect(await out('mul')).toBe(2);
    expect(await out('div')).toBe(2);
  });

  it('on_missing keep leaves unusable rows unchanged and warns', async () => {
    const c = ctx();
    const res = await run(rewardShaping, { stat: 'fmt', op: 'add', weight: 1 }, rows(), c);
    expect(res.rows.map((e) => e.reward)).toEqual([1.5, 2, 3, 4, 6]);
    expect(res.dropped).toEqual([]);
    expect(res.metrics).toMatchObject({ shaped: 3, missing_stat: 2, division_by_zero: 0 });
    expect(c.warnings).toEqual(['reward_shaping: 2 experience(s) kept unshaped (info.fmt unusable)']);
  });

  it('on_missing drop says why, and division by zero is guarded', async () => {
    const res = await run(rewardShaping, { stat: 'fmt', op: 'div', onMissing: 'drop' }, rows());
    expect(res.rows.map((e) => [e.runIndex, e.reward])).toEqual([
      [0, 2],
      [4, 5],
    ]);
    expect(res.dropped.map((d) => [d.row.runIndex, d.reason])).toEqual([
      [1, 'info.fmt is missing'],
      [2, 'info.fmt is not a number (string)'],
      [3, 'info.fmt × weight is 0: cannot divide the reward by it'],
    ]);
    expect(res.metrics).toMatchObject({ shaped: 2, missing_stat: 2, division_by_zero: 1 });
  });

  it('reads dotted paths into nested info', async () => {
    const res = await run(rewardShaping, { stat: 'judge.score', op: 'mul', weight: 0.5 }, rows());
    expect(res.rows[1]!.reward).toBe(4);
  });
});

describe('length_penalty', () => {
  const withTokens = (runIndex: number, reward: number, responseLen: number) =>
    exp({
      groupId: 'g',
      runIndex,
      reward,
      tokens: Array.from({ length: 3 + responseLen }, (_, i) => i),
      promptLength: 3,
    });

  it('penalises response tokens over the target', async () => {
    const res = await run(lengthPenalty, { coef: 0.01, target: 10 }, [
      withTokens(0, 1, 5),
      withTokens(1, 1, 30),
      withTokens(2, 0, 110),
    ]);
    expect(res.rows.map((e) => r6(e.reward))).toEqual([1, 0.8, -1]);
    expect(res.metrics).toMatchObject({ penalised: 2, mean_length: 48.333333333333336, unmeasurable: 0 });
    expect(r6(res.metrics!.penalty_sum!)).toBe(1.2);
  });

  it('only_correct spares wrong answers; masked environment tokens do not count', async () => {
    const multiTurn = exp({
      groupId: 'g',
      runIndex: 3,
      reward: 1,
      tokens: [1, 2, 3, 4, 5, 6],
      promptLength: 1,
      actionMask: [1, 1, 0, 0, 1],
    });
    const res = await run(lengthPenalty, { coef: 0.1, target: 1, onlyCorrect: true }, [
      withTokens(0, 0, 30),
      multiTurn,
    ]);
    expect(res.rows.map((e) => r6(e.reward))).toEqual([0, 0.8]);
  });

  it('counts characters (code points) with unit chars, and warns on rows without tokens', async () => {
    const c = ctx();
    const rows = [exp({ groupId: 'g', reward: 1, response: 'ab🙂de' })];
    const chars = await run(lengthPenalty, { coef: 0.5, target: 3, unit: 'chars' }, rows, c);
    expect(chars.rows[0]!.reward).toBe(0);
    const tokens = await run(lengthPenalty, { coef: 0.5, target: 3 }, rows, c);
    expect(tokens.rows[0]!.reward).toBe(1);
    expect(tokens.metrics?.unmeasurable).toBe(1);
    expect(c.warnings).toHaveLength(1);
  });
});

describe('pass_rate and collectTaskRewards', () => {
  const batch = () => [
    ...batchOf([
      [1, 0, 1, 1],
      [0, 0],
      [1, 1],
    ]),
    exp({ groupId: 'g0', runIndex: 4, reward: Number.NaN }),
    exp({ groupId: 'g9', reward: Number.NaN }),
  ];

  it('collects finite rewards per task in order of first appearance', () => {
    expect(collectTaskRewards(batch())).toEqual([
      { taskId: 't0', rewards: [1, 0, 1, 1] },
      { taskId: 't1', rewards: [0, 0] },
      { taskId: 't2', rewards: [1, 1] },
    ]);
  });

  it('computes per-task pass rates and mean rewards', () => {
    expect(computeTaskPassRates(batchOf([[1, 0.4, 0.6]]), 0.5)).toEqual([
      { taskId: 't0', rewards: [1, 0.4, 0.6], passRate: 2 / 3, meanReward: 2 / 3 },
    ]);
  });

  it('keeps rows unchanged and reports metrics', async () => {
    const input = batch();
    const res = await run(passRate, {}, input);
    expect(res.rows).toEqual(input);
    expect(res.dropped).toEqual([]);
    expect(res.metrics).toEqual({
      tasks: 3,
      pass_rate: (0.75 + 0 + 1) / 3,
      mean_reward: 5 / 8,
      tasks_all_pass: 1,
      tasks_none_pass: 1,
      tasks_mixed_rewards: 1,
      effective_task_ratio: 1 / 3,
      invalid_rewards: 2,
    });
  });
});
