import { z } from 'zod';
import type { Experience } from '../../core/experience.ts';
import type { Drop, OperatorContext, OperatorResult } from '../operator.ts';
import {
  applyAdvantages,
  countSingletons,
  epsParam,
  perTokenParam,
  sampleStdKindParam,
} from './advantage.ts';
import { defineExperienceOperator } from './define.ts';
import { duplicateGroups } from './duplicate-groups.ts';
import { rankPenalizedRewards } from './rank-penalty.ts';
import { fmt, groupIndices, isFiniteReward, mean, std } from './stats.ts';

const paramsSchema = z
  .object({
    stdNormalize: z.boolean().default(true),
    std: sampleStdKindParam,
    eps: epsParam,
    stdLevel: z
      .enum(['group', 'batch'])
      .default('group')
      .describe(
        "which std divides: the group's own, or one std over the whole batch (the mean stays per group)",
      ),
    rankPenalty: z
      .number()
      .min(0)
      .max(1)
      .nullable()
      .default(null)
      .describe(
        'λ: scale each reward by 1 − λ·rank/G, rank 0 = least likely rollout of the group (needs logprobs)',
      ),
    stdThreshold: z
      .number()
      .nonnegative()
      .nullable()
      .default(null)
      .describe('drop groups whose reward std is ≤ this (a group of one always is); null keeps every group'),
    duplicateExperiences: z
      .boolean()
      .default(false)
      .describe(
        'replace each group dropped by stdThreshold with a copy of a surviving group (seeded choice)',
      ),
    perToken: perTokenParam,
  })
  .strict()
  .superRefine((p, c) => {
    if (p.duplicateExperiences && p.stdThreshold === null)
      c.addIssue({
        code: 'custom',
        path: ['duplicateExperiences'],
        message: 'duplicateExperiences refills groups dropped by stdThreshold: set stdThreshold too',
      });
    if (p.stdLevel === 'batch' && !p.stdNormalize)
      c.addIssue({
        code: 'custom',
        path: ['stdLevel'],
        message: 'stdLevel applies only with stdNormalize: true',
      });
  });

type GrpoParams = z.output<typeof paramsSchema>;

/**
 * GRPO: each rollout is compared with its own group.
 * A = (r − mean_g) / (σ + eps), or A = r − mean_g with `stdNormalize: false`; σ is the group's std
 * (`stdLevel: group`) or the batch's (`stdLevel: batch`). Options as Trinity-RFT's `grpo`:
 * `rankPenalty` reshapes rewards before anything else, `stdThreshold` drops flat groups and
 * `duplicateExperiences` refills them. A group of one has advantage 0 (its own mean).
 */
export const grpo = defineExperienceOperator({
  name: 'grpo',
  kind: 'group',
  description: 'GRPO advantage: reward minus the group mean, divided by the group (or batch) std (+ eps)',
  params: paramsSchema,
  create: (p) => ({
    name: 'grpo',
    kind: 'group',
    process: (batch, ctx) => processGrpo(p, batch, ctx),
  }),
});

function processGrpo(
  p: GrpoParams,
  batch: readonly Experience[],
  ctx: OperatorContext,
): OperatorResult<Experience> {
  // Rewards after the rank penalty, by row (rows with unusable rewards are left to applyAdvantages).
  const shaped = new Map<Experience, number>();
  const groups = groupIndices(batch);
  let unranked = 0;
  for (const idx of groups.values()) {
    const finite = idx.filter((i) => isFiniteReward(batch[i]!.reward));
    const adjusted = p.rankPenalty === null ? null : rankPenalizedRewards(batch, finite, p.rankPenalty);
    if (p.rankPenalty !== null && adjusted === null) unranked++;
    finite.forEach((i, k) => {
      shaped.set(batch[i]!, adjusted ? adjusted[k]! : batch[i]!.reward);
    });
  }
  if (unranked > 0)
    ctx.warn(`grpo: rankPenalty skipped for ${unranked} group(s) with a rollout that has no logprobs`);

  // stdThreshold: whole groups leave before any advantage is computed.
  const dropped: Drop<Experience>[] = [];
  const flat = new Set<number>();
  let lowStd = 0;
  for (const [gid, idx] of groups) {
    const values = idx.map((i) => shaped.get(batch[i]!)).filter((v): v is number => v !== undefined);
    const s = std(values, p.std);
    if (p.stdThreshold !== null && values.length > 0 && s <= p.stdThreshold) {
      lowStd++;
      const reason = `group ${gid}: reward std ${fmt(s)} ≤ stdThreshold ${fmt(p.stdThreshold)}`;
      for (const i of idx) {
        dropped.push({ row: batch[i]!, reason });
        flat.add(i);
      }
    }
  }
  // Batch order is kept (groups may interleave).
  const keptRows = flat.size === 0 ? batch : batch.filter((_, i) => !flat.has(i));

  const batchStd = std([...shaped.values()], p.std);
  const result = applyAdvantages('grpo', keptRows, ctx, p.perToken, (rows, groupsOf) => {
    const advantages = new Array<number>(rows.length).fill(0);
    for (const idx of groupsOf.values()) {
      const r = idx.map((i) => shaped.get(rows[i]!) ?? rows[i]!.reward);
      const m = mean(r);
      const s = p.stdLevel === 'batch' ? batchStd : std(r, p.std);
      idx.forEach((i, k) => {
        const d = r[k]! - m;
        // s + eps is 0 only when eps = 0 and the values are flat, where d is 0 too.
        advantages[i] = p.stdNormalize ? (s + p.eps === 0 ? 0 : d / (s + p.eps)) : d;
      });
    }
    const extra: Record<string, number> = { singleton_groups: countSingletons(groupsOf) };
    if (p.stdLevel === 'batch') extra.batch_std = batchStd;
    return { advantages, metrics: extra };
  });

  const metrics: Record<string, number> = { ...result.metrics };
  if (p.rankPenalty !== null) metrics.rank_penalty_skipped_groups = unranked;
  if (p.stdThreshold !== null) metrics.groups_dropped_low_std = lowStd;
  let rows = result.rows;
  if (p.duplicateExperiences) {
    const byGroup = new Map<string, Experience[]>();
    for (const e of rows) byGroup.set(e.groupId, [...(byGroup.get(e.groupId) ?? []), e]);
    const copies = duplicateGroups(byGroup, lowStd, ctx.rng);
    metrics.groups_duplicated = copies.length === 0 ? 0 : lowStd;
    metrics.rows_duplicated = copies.length;
    if (lowStd > 0 && copies.length === 0)
      ctx.warn(`grpo: ${lowStd} group(s) dropped and none left to duplicate`);
    rows = [...rows, ...copies];
  }
  return { rows, dropped: [...dropped, ...result.dropped], metrics };
}
