import { z } from 'zod';
import type { Experience } from '../../core/experience.ts';
import type { JsonValue } from '../../core/task.ts';
import type { Drop } from '../operator.ts';
import { defineExperienceOperator } from './define.ts';
import { mean } from './stats.ts';

/** `info[stat]`, or the value at a dotted path (`judge.score`) when no key has that exact name. */
export function lookupInfo(info: Record<string, JsonValue> | undefined, stat: string): JsonValue | undefined {
  if (!info) return undefined;
  if (Object.hasOwn(info, stat)) return info[stat];
  let cur: JsonValue | undefined = info;
  for (const part of stat.split('.')) {
    if (cur === null || typeof cur !== 'object' || Array.isArray(cur) || !Object.hasOwn(cur, part))
      return undefined;
    cur = (cur as Record<string, JsonValue>)[part];
  }
  return cur;
}

/** A stat as a number (booleans count as 1/0), or why it cannot be used. */
function statValue(v: JsonValue | undefined, stat: string): number | string {
  if (v === undefined || v === null) return `info.${stat} is missing`;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v !== 'number') return `info.${stat} is not a number (${Array.isArray(v) ? 'array' : typeof v})`;
  if (!Number.isFinite(v)) return `info.${stat} is not finite (${v})`;
  return v;
}

/** reward ← reward op (info[stat] × weight). */
export const rewardShaping = defineExperienceOperator({
  name: 'reward_shaping',
  kind: 'map',
  description: 'combine the reward with a number from info: reward ← reward op (info[stat] × weight)',
  params: z
    .object({
      stat: z.string().min(1),
      op: z.enum(['add', 'sub', 'mul', 'div']).default('add'),
      weight: z.number().default(1),
      onMissing: z.enum(['drop', 'keep']).default('keep'),
    })
    .strict(),
  create: (p) => ({
    name: 'reward_shaping',
    kind: 'map',
    process: (batch, ctx) => {
      const rows: Experience[] = [];
      const dropped: Drop<Experience>[] = [];
      let missing = 0;
      let divZero = 0;
      let shaped = 0;
      const unusable = (e: Experience, why: string) => {
        if (p.onMissing === 'drop') dropped.push({ row: e, reason: why });
        else rows.push(e);
      };
      for (const e of batch) {
        const v = statValue(lookupInfo(e.info, p.stat), p.stat);
        if (typeof v === 'string') {
          missing++;
          unusable(e, v);
          continue;
        }
        const x = v * p.weight;
        let reward: number;
        if (p.op === 'add') reward = e.reward + x;
        else if (p.op === 'sub') reward = e.reward - x;
        else if (p.op === 'mul') reward = e.reward * x;
        else {
          if (x === 0) {
            divZero++;
            unusable(e, `info.${p.stat} × weight is 0: cannot divide the reward by it`);
            continue;
          }
          reward = e.reward / x;
        }
        shaped++;
        rows.push({ ...e, reward });
      }
      if (p.onMissing === 'keep' && missing + divZero > 0)
        ctx.warn(
          `reward_shaping: ${missing + divZero} experience(s) kept unshaped (info.${p.stat} unusable)`,
        );
      return {
        rows,
        dropped,
        metrics: {
          shaped,
          missing_stat: missing,
          division_by_zero: divZero,
          mean_reward_before: batch.length > 0 ? mean(batch.map((e) => e.reward)) : 0,
          mean_reward_after: rows.length > 0 ? mean(rows.map((e) => e.reward)) : 0,
        },
      };
    },
  }),
});
