import { z } from 'zod';
import type { Experience } from '../../core/experience.ts';
import { responseActionMask } from '../../core/token-alignment.ts';
import type { Drop, OperatorContext, OperatorResult } from '../operator.ts';
import { groupIndices, invalidRewardReason, mean, std } from './stats.ts';

/** Key written into `info` by every advantage operator, so later steps can tell one ran. */
export const ADVANTAGE_FN_INFO_KEY = 'advantage_fn';

/** Parameters every advantage operator accepts. */
export const perTokenParam = z
  .boolean()
  .default(false)
  .describe('also write per-token `advantages`: the scalar on every policy token, 0 elsewhere');

export const epsParam = z.number().nonnegative().default(1e-6).describe('added to the std before dividing');

export const stdKindParam = z
  .enum(['population', 'sample'])
  .default('population')
  .describe('population std divides by n, sample std by n − 1');

/** grpo's std: sample by default, as Trinity-RFT's grpo (PyTorch's `std` is unbiased). */
export const sampleStdKindParam = z
  .enum(['population', 'sample'])
  .default('sample')
  .describe("sample std divides by n − 1 (Trinity's grpo, the default), population std by n");

/**
 * Computes one advantage per row. `rows` holds only rows with finite rewards; `groups` maps each
 * groupId to indices into `rows`. Returns advantages aligned with `rows`, plus extra metrics.
 */
export type AdvantageCompute = (
  rows: readonly Experience[],
  groups: Map<string, number[]>,
  ctx: OperatorContext,
) => { advantages: number[]; metrics?: Record<string, number> };

/**
 * The part every advantage operator shares: rows whose reward is not a finite number are
 * dropped (an advantage cannot be computed from them); the rest get `advantage` (and optionally
 * per-token `advantages`) and `info.advantage_fn`. Input rows are never mutated.
 */
export function applyAdvantages(
  name: string,
  batch: readonly Experience[],
  ctx: OperatorContext,
  perToken: boolean,
  compute: AdvantageCompute,
): OperatorResult<Experience> {
  const dropped: Drop<Experience>[] = [];
  const valid: Experience[] = [];
  for (const e of batch) {
    const why = invalidRewardReason(e.reward);
    if (why === null) valid.push(e);
    else dropped.push({ row: e, reason: `${why}: no advantage can be computed` });
  }
  const groups = groupIndices(valid);
  const { advantages, metrics: extra } = compute(valid, groups, ctx);

  const rows: Experience[] = [];
  let noTokens = 0;
  for (let i = 0; i < valid.length; i++) {
    const e = valid[i]!;
    const a = advantages[i]!;
    const out: Experience = { ...e, advantage: a, info: { ...e.info, [ADVANTAGE_FN_INFO_KEY]: name } };
    delete out.advantages;
    if (perToken) {
      const pos = responseActionMask(e);
      if (typeof pos === 'string') {
        dropped.push({ row: e, reason: `cannot write per-token advantages: ${pos}` });
        continue;
      }
      if (pos.length === 0) noTokens++;
      // One entry per response token (src/core/token-alignment.ts). `m * a` would give -0 for negative advantages on masked tokens.
      out.advantages = pos.map((m) => (m === 1 ? a : 0));
    }
    rows.push(out);
  }
  if (noTokens > 0)
    ctx.warn(`${name}: ${noTokens} experience(s) have no tokens; per-token advantages are empty`);

  const kept = rows.map((r) => r.advantage);
  const metrics: Record<string, number> = {
    rows: rows.length,
    groups: groups.size,
    dropped_invalid_reward: batch.length - valid.length,
    mean_reward: valid.length > 0 ? mean(valid.map((e) => e.reward)) : 0,
    advantage_mean: kept.length > 0 ? mean(kept) : 0,
    advantage_std: std(kept),
    advantage_min: kept.length > 0 ? Math.min(...kept) : 0,
    advantage_max: kept.length > 0 ? Math.max(...kept) : 0,
    zero_advantage: kept.filter((a) => a === 0).length,
    ...extra,
  };
  if (perToken) metrics.per_token_without_tokens = noTokens;
  return { rows, dropped, metrics };
}

/** Group mean for every row (aligned with `rows`). */
export function groupMeans(rows: readonly Experience[], groups: Map<string, number[]>): number[] {
  const out = new Array<number>(rows.length).fill(0);
  for (const idx of groups.values()) {
    const m = mean(idx.map((i) => rows[i]!.reward));
    for (const i of idx) out[i] = m;
  }
  return out;
}

/** How many groups have a single member (their advantage is 0 for every group-baseline method). */
export function countSingletons(groups: Map<string, number[]>): number {
  let c = 0;
  for (const idx of groups.values()) if (idx.length === 1) c++;
  return c;
}
