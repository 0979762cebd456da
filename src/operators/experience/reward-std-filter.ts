import { z } from 'zod';
import type { Experience } from '../../core/experience.ts';
import type { Drop } from '../operator.ts';
import { stdKindParam } from './advantage.ts';
import { defineExperienceOperator } from './define.ts';
import { lookupInfo } from './reward-shaping.ts';
import { fmt, groupIndices, isFiniteReward, std } from './stats.ts';

export const SURPLUS_REASON = 'surplus (batch already full)';

/** The metric a group is judged by: the reward, or a number (or boolean) in `info`. */
function metricValue(e: Experience, metric: string): number | undefined {
  if (metric === 'reward') return isFiniteReward(e.reward) ? e.reward : undefined;
  const v = lookupInfo(e.info, metric);
  if (typeof v === 'boolean') return v ? 1 : 0;
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

/**
 * Drops groups that teach nothing. `by: std` (default) drops "advantage-equal" groups: when every
 * rollout of a group scored the same, every group-baseline advantage is 0; more generally groups
 * whose std is ≤ `threshold`. `by: correct` is DAPO's dynamic sampling: a group is kept only when
 * 0 < correct < G, a rollout being correct when its metric is > `correctAbove`. `metric` picks
 * what is judged: the reward, or an `info` key (DAPO's `filter_groups.metric`, e.g. `accuracy`,
 * so an overlong penalty on the reward does not make an all-correct group look mixed).
 * All-correct and all-wrong groups are counted either way. With `refill`, a step draws rounds of
 * groups until `targetGroups` pass (up to `maxRounds`; src/lifecycle/run/filter-refill.ts, the
 * same dynamic sampling as the `dapo_ds` stage) and this operator keeps the first `targetGroups`
 * surviving groups (batch order: deterministic), dropping any surplus.
 */
export const rewardStdFilter = defineExperienceOperator({
  name: 'reward_std_filter',
  kind: 'group',
  description:
    'drop groups whose rewards are all equal (std ≤ threshold) or, by: correct, all right or all wrong; optionally refill to targetGroups',
  params: z
    .object({
      by: z
        .enum(['std', 'correct'])
        .default('std')
        .describe('std: drop groups with std ≤ threshold; correct: keep groups with 0 < correct < G (DAPO)'),
      metric: z
        .string()
        .min(1)
        .default('reward')
        .describe('what is judged: `reward`, or an info key / dotted path (booleans count as 1/0)'),
      correctAbove: z
        .number()
        .default(0)
        .describe('a rollout counts as correct when its metric is > this (0 fits 0/1 and ±1 rewards)'),
      threshold: z.number().nonnegative().default(0),
      std: stdKindParam,
      refill: z.boolean().default(false),
      targetGroups: z.number().int().positive().optional(),
      maxRounds: z
        .number()
        .int()
        .min(1)
        .max(1000)
        .optional()
        .describe('with refill: rounds of rollouts a step may take to fill targetGroups (default 8)'),
    })
    .strict()
    .superRefine((p, c) => {
      if (p.refill && p.targetGroups === undefined)
        c.addIssue({ code: 'custom', path: ['targetGroups'], message: 'refill: true needs targetGroups' });
      if (!p.refill && p.targetGroups !== undefined)
        c.addIssue({
          code: 'custom',
          path: ['targetGroups'],
          message: 'targetGroups only applies with refill: true',
        });
      if (!p.refill && p.maxRounds !== undefined)
        c.addIssue({
          code: 'custom',
          path: ['maxRounds'],
          message: 'maxRounds only applies with refill: true',
        });
      if (p.by === 'correct' && p.threshold !== 0)
        c.addIssue({ code: 'custom', path: ['threshold'], message: 'threshold applies only with by: std' });
    }),
  create: (p) => ({
    name: 'reward_std_filter',
    kind: 'group',
    process: (batch) => {
      const groups = groupIndices(batch);
      const dropReason = new Array<string | null>(batch.length).fill(null);
      const what = p.metric === 'reward' ? 'rewards' : `${p.metric} values`;
      let equal = 0;
      let lowStd = 0;
      let surplus = 0;
      let kept = 0;
      let allCorrect = 0;
      let allWrong = 0;
      for (const [gid, idx] of groups) {
        const values = idx.map((i) => metricValue(batch[i]!, p.metric)).filter((v) => v !== undefined);
        const correct = values.filter((v) => v > p.correctAbove).length;
        if (values.length > 0 && correct === values.length) allCorrect++;
        if (values.length > 0 && correct === 0) allWrong++;
        let reason: string | null = null;
        if (values.length === 0) reason = `group ${gid}: no finite ${what}`;
        else if (p.by === 'correct' && (correct === 0 || correct === values.length)) {
          const side = correct === 0 ? 'wrong' : 'correct';
          reason = `group ${gid}: all ${values.length} ${side} (${p.metric} ${correct === 0 ? '≤' : '>'} ${fmt(p.correctAbove)})`;
        } else if (p.by === 'std' && values.every((v) => v === values[0])) {
          reason = `group ${gid}: all ${what} equal (${p.metric === 'reward' ? 'r' : p.metric}=${fmt(values[0]!)})`;
          equal++;
        } else {
          const s = std(values, p.std);
          if (p.by === 'std' && s <= p.threshold) {
            reason = `group ${gid}: ${p.metric === 'reward' ? 'reward' : p.metric} std ${fmt(s)} ≤ threshold ${fmt(p.threshold)}`;
            lowStd++;
          } else if (p.refill && kept >= p.targetGroups!) {
            reason = SURPLUS_REASON;
            surplus++;
          } else kept++;
        }
        if (reason !== null) for (const i of idx) dropReason[i] = reason;
      }
      const rows: Experience[] = [];
      const dropped: Drop<Experience>[] = [];
      for (let i = 0; i < batch.length; i++) {
        const reason = dropReason[i];
        if (reason === null) rows.push(batch[i]!);
        else dropped.push({ row: batch[i]!, reason: reason! });
      }
      const metrics: Record<string, number> = {
        groups: groups.size,
        groups_kept: kept,
        groups_dropped_equal: equal,
        groups_dropped_low_std: lowStd,
        groups_dropped_surplus: surplus,
        groups_all_correct: allCorrect,
        groups_all_wrong: allWrong,
        // Share of groups with a learning signal, before the surplus cut.
        effective_group_ratio: groups.size > 0 ? (kept + surplus) / groups.size : 0,
      };
      if (p.refill) metrics.groups_short = Math.max(0, p.targetGroups! - kept);
      return { rows, dropped, metrics };
    },
  }),
});
