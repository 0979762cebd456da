import { z } from 'zod';
import { readTrajectory, type Trajectory } from '../../agents/trajectory.ts';
import type { Experience } from '../../core/experience.ts';
import { responseActionMask } from '../../core/token-alignment.ts';
import type { Drop, OperatorContext, OperatorResult } from '../operator.ts';
import { ADVANTAGE_FN_INFO_KEY, epsParam } from './advantage.ts';
import { defineExperienceOperator } from './define.ts';
import { groupIndices, invalidRewardReason, mean, std } from './stats.ts';

const paramsSchema = z.strictObject({
  reward: z
    .enum(['final', 'per_step'])
    .default('final')
    .describe(
      'final: the episode outcome (last step reward) credits every turn; per_step: each turn gets its discounted return from that step on',
    ),
  gamma: z.number().min(0).max(1).default(1).describe('Discount per turn (1: none).'),
  baseline: z
    .enum(['group', 'none'])
    .default('group')
    .describe("group: compare with the task's other episodes (the group is the task); none: raw returns"),
  stdNormalize: z.boolean().default(true).describe('Divide by the group std (+ eps) after the baseline.'),
  eps: epsParam,
});
type Params = z.output<typeof paramsSchema>;

/**
 * Per-turn returns of one trajectory: `per_step`: G_t = Σ_{k≥t} γ^(k−t) r_k; `final`: the outcome
 * (last step's reward) for every turn, γ^(T−1−t) times it for turn t of T.
 */
export function turnReturns(t: Trajectory, reward: Params['reward'], gamma: number): number[] {
  const r = t.turns.map((turn) => turn.reward);
  const T = r.length;
  if (reward === 'final') return r.map((_, i) => gamma ** (T - 1 - i) * (r[T - 1] ?? 0));
  const g = new Array<number>(T).fill(0);
  let acc = 0;
  for (let i = T - 1; i >= 0; i--) {
    acc = r[i]! + gamma * acc;
    g[i] = acc;
  }
  return g;
}

/**
 * The values a group's baseline is taken over: `final`, one outcome per episode (GRPO over
 * episodes); `per_step`, every turn's return of every episode.
 */
function baselineValues(t: Trajectory, p: Params): number[] {
  if (p.reward === 'per_step') return turnReturns(t, 'per_step', p.gamma);
  return t.turns.length > 0 ? [t.turns[t.turns.length - 1]!.reward] : [];
}

/** Turn advantages: the baseline-normalised outcome discounted back (final), or normalised returns. */
function turnAdvantages(t: Trajectory, p: Params, norm: (x: number) => number): number[] {
  const T = t.turns.length;
  if (p.reward === 'per_step') return turnReturns(t, 'per_step', p.gamma).map(norm);
  const a = T > 0 ? norm(t.turns[T - 1]!.reward) : 0;
  return t.turns.map((_, i) => p.gamma ** (T - 1 - i) * a);
}

function process(p: Params, name: string, batch: readonly Experience[], ctx: OperatorContext) {
  const dropped: Drop<Experience>[] = [];
  const valid: { e: Experience; t: Trajectory }[] = [];
  for (const e of batch) {
    const why = invalidRewardReason(e.reward);
    const t = readTrajectory(e);
    if (why !== null) dropped.push({ row: e, reason: `${why}: no advantage can be computed` });
    else if (typeof t === 'string') dropped.push({ row: e, reason: t });
    else valid.push({ e, t });
  }
  // The group is the task's episodes of this step (groupId).
  const groups = groupIndices(valid.map((v) => v.e));
  const baseOf = new Map<string, { m: number; s: number }>();
  for (const [gid, idx] of groups) {
    const pooled = idx.flatMap((i) => baselineValues(valid[i]!.t, p));
    baseOf.set(gid, { m: p.baseline === 'group' ? mean(pooled) : 0, s: std(pooled) });
  }
  const rows: Experience[] = [];
  let turnsScored = 0;
  for (const { e, t } of valid) {
    const { m, s } = baseOf.get(e.groupId)!;
    const adv = turnAdvantages(t, p, (g) => {
      const d = g - m;
      return p.stdNormalize ? (s + p.eps === 0 ? 0 : d / (s + p.eps)) : d;
    });
    const mask = responseActionMask(e);
    if (typeof mask === 'string') {
      dropped.push({ row: e, reason: `cannot write per-token advantages: ${mask}` });
      continue;
    }
    // Each turn's model tokens carry that turn's advantage; tool and environment tokens stay 0.
    const perToken = new Array<number>(mask.length).fill(0);
    t.turns.forEach((turn, i) => {
      for (let k = turn.tokenSpan[0]; k < Math.min(turn.tokenSpan[1], mask.length); k++)
        if (mask[k] === 1) perToken[k] = adv[i]!;
    });
    turnsScored += t.turns.length;
    rows.push({
      ...e,
      advantage: adv[0] ?? 0,
      advantages: perToken,
      info: { ...e.info, [ADVANTAGE_FN_INFO_KEY]: name, turn_advantages: adv },
    });
  }
  const first = rows.map((r) => r.advantage);
  if (valid.length > 0 && groups.size === valid.length && p.baseline === 'group' && p.reward === 'final')
    ctx.warn(`${name}: every group holds one episode; its advantages are 0 (set repeat > 1)`);
  const result: OperatorResult<Experience> = {
    rows,
    dropped,
    metrics: {
      rows: rows.length,
      groups: groups.size,
      turns: turnsScored,
      advantage_mean: first.length > 0 ? mean(first) : 0,
      advantage_std: std(first),
    },
  };
  return result;
}

/**
 * Advantages for multi-turn trajectories (src/agents): per-turn returns (outcome or per-step,
 * discounted), a group baseline where the group is the task, and per-token `advantages` that put
 * each turn's value on that turn's model tokens only.
 */
export const trajectoryAdvantage = defineExperienceOperator({
  name: 'trajectory_advantage',
  kind: 'group',
  description: 'advantages of agent trajectories: final or per-step rewards, discounted, task-group baseline',
  params: paramsSchema,
  create: (p) => ({
    name: 'trajectory_advantage',
    kind: 'group',
    process: (batch, ctx) => process(p, 'trajectory_advantage', batch, ctx),
  }),
});

/**
 * Multi-step GRPO: the episode's outcome, normalised within the task's group of episodes, on
 * every model token of every turn (γ < 1 gives earlier turns less of it).
 */
export const multiStepGrpo = defineExperienceOperator({
  name: 'multi_step_grpo',
  kind: 'group',
  description: 'GRPO over agent episodes: the outcome normalised within the task group, on every model turn',
  params: z.strictObject({ gamma: paramsSchema.shape.gamma, eps: epsParam }),
  create: (p) => ({
    name: 'multi_step_grpo',
    kind: 'group',
    process: (batch, ctx) =>
      process(
        { reward: 'final', gamma: p.gamma, baseline: 'group', stdNormalize: true, eps: p.eps },
        'multi_step_grpo',
        batch,
        ctx,
      ),
  }),
});
