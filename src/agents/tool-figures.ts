import type { Experience } from '../core/experience.ts';
import { type CallCounts, readTrajectory } from './trajectory.ts';

/**
 * A step's tool-use figures, from the call counts every agent episode records in
 * `info.trajectory.counts`: the step-record keys `tool/…` (metrics.jsonl, the run report, Studio).
 * Counted over all the step's rollouts, before experience operators drop any, so a filter on tool
 * use does not hide the calls it filtered. A step with no agent episode has no `tool/` keys.
 */

/** Step-record key prefix of the tool figures. */
export const TOOL_PREFIX = 'tool/';

/** Summed per step: key (without the prefix) → the trajectory count it adds up. */
const SUMMED: ReadonlyArray<readonly [string, keyof CallCounts]> = [
  ['calls', 'toolCalls'],
  ['valid_calls', 'validCalls'],
  ['invalid_calls', 'invalidCalls'],
  ['malformed', 'malformed'],
  ['unknown_tool', 'unknownTool'],
  ['invalid_arguments', 'invalidArguments'],
  ['errors', 'toolError'],
  ['timeouts', 'timeout'],
];

/** The figures' keys, in metrics.jsonl order (docs/agents.md lists what each means). */
export const TOOL_FIGURE_KEYS = [
  'episodes',
  ...SUMMED.map(([k]) => k),
  'calls_per_episode',
  'invalid_call_ratio',
  'episodes_without_calls',
  'turns_per_episode',
].map((k) => `${TOOL_PREFIX}${k}`);

/** The `tool/…` figures of one step's rollouts, or null when none of them is an agent episode. */
export function toolStepFigures(rollouts: readonly Experience[]): Record<string, number> | null {
  const sums = new Map<string, number>(SUMMED.map(([k]) => [k, 0]));
  let episodes = 0;
  let withoutCalls = 0;
  let turns = 0;
  for (const e of rollouts) {
    const t = readTrajectory(e);
    if (typeof t === 'string') continue;
    episodes++;
    turns += t.turns.length;
    if (t.counts.toolCalls === 0) withoutCalls++;
    for (const [k, count] of SUMMED) sums.set(k, sums.get(k)! + t.counts[count]);
  }
  if (episodes === 0) return null;
  const calls = sums.get('calls')!;
  const out: Record<string, number> = { [`${TOOL_PREFIX}episodes`]: episodes };
  for (const [k, v] of sums) out[`${TOOL_PREFIX}${k}`] = v;
  out[`${TOOL_PREFIX}calls_per_episode`] = calls / episodes;
  // With no call at all, no call was invalid.
  out[`${TOOL_PREFIX}invalid_call_ratio`] = calls === 0 ? 0 : sums.get('invalid_calls')! / calls;
  out[`${TOOL_PREFIX}episodes_without_calls`] = withoutCalls;
  out[`${TOOL_PREFIX}turns_per_episode`] = turns / episodes;
  return out;
}
