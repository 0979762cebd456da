import { z } from 'zod';
import { readTrajectory } from '../../agents/trajectory.ts';
import { filterRows } from '../operator.ts';
import { defineExperienceOperator } from './define.ts';
import { fmt } from './stats.ts';

const paramsSchema = z.strictObject({
  maxTurns: z.number().int().positive().nullable().default(null).describe('Drop episodes with more turns.'),
  maxTokens: z
    .number()
    .int()
    .positive()
    .nullable()
    .default(null)
    .describe('Drop episodes whose tokens (prompt, turns, observations) are more.'),
  requireToolUse: z.boolean().default(false).describe('Drop episodes that called no tool.'),
  maxInvalidCallRatio: z
    .number()
    .min(0)
    .max(1)
    .nullable()
    .default(null)
    .describe('Drop episodes whose invalid calls / all calls exceed this.'),
});

/**
 * Filters agent trajectories: too long (turns, tokens), no tool used, too many invalid calls.
 * Each drop names the rule and the numbers; a row that is no agent episode is dropped with that
 * reason (a trajectory filter in the pipeline means every row should be one).
 */
export const trajectoryFilter = defineExperienceOperator({
  name: 'trajectory_filter',
  kind: 'filter',
  description: 'drop agent trajectories that are too long, use no tool, or have too many invalid calls',
  params: paramsSchema,
  create: (p) => ({
    name: 'trajectory_filter',
    kind: 'filter',
    process: (batch) =>
      filterRows(batch, (e) => {
        const t = readTrajectory(e);
        if (typeof t === 'string') return t;
        if (p.maxTurns !== null && t.turns.length > p.maxTurns)
          return `trajectory has ${t.turns.length} turns > maxTurns ${p.maxTurns}`;
        if (p.maxTokens !== null && e.tokens.length > p.maxTokens)
          return `trajectory has ${e.tokens.length} tokens > maxTokens ${p.maxTokens}`;
        if (p.requireToolUse && t.counts.toolCalls === 0) return 'trajectory used no tool';
        if (p.maxInvalidCallRatio !== null && t.counts.toolCalls > 0) {
          const ratio = t.counts.invalidCalls / t.counts.toolCalls;
          if (ratio > p.maxInvalidCallRatio)
            return `invalid-call ratio ${fmt(ratio)} (${t.counts.invalidCalls} of ${t.counts.toolCalls}) > maxInvalidCallRatio ${fmt(p.maxInvalidCallRatio)}`;
        }
        return null;
      }),
  }),
});
