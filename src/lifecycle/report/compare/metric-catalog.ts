import type { MetricUnit } from './run-comparison-schema.ts';

/** What a metrics.jsonl key means, for chart titles and the metric picker. */
export interface MetricInfo {
  label: string;
  unit: MetricUnit;
  description: string;
}

/** The step-record keys a reader knows by name, in the order a comparison lists them first. */
export const KNOWN_METRICS: ReadonlyArray<readonly [string, MetricInfo]> = [
  [
    'meanReward',
    { label: 'mean reward', unit: 'number', description: 'Mean reward of the step’s rollouts.' },
  ],
  [
    'accuracy',
    {
      label: 'held-out accuracy',
      unit: 'ratio',
      description: 'Greedy accuracy on the held-out tasks (step 0: before training).',
    },
  ],
  [
    'effectiveTaskRatio',
    {
      label: 'effective task ratio',
      unit: 'ratio',
      description: 'Share of rollout groups whose rewards were not all equal (the ones with a gradient).',
    },
  ],
  [
    'meanDifficulty',
    {
      label: 'mean difficulty of selected tasks',
      unit: 'number',
      description: 'Mean features.difficulty of the tasks the selector picked.',
    },
  ],
  ['trainLoss', { label: 'training loss', unit: 'number', description: 'The trainer’s loss this step.' }],
  [
    'rolloutsPerSecond',
    { label: 'rollouts / s', unit: 'number', description: 'Rollouts per second of explore time.' },
  ],
];

/**
 * Metrics the issue asks a comparison to show that the run loop may not record. Matched by
 * pattern, so a key added later (`replayReuse`, `buffer/reuseRatio`) is found without a change here.
 */
export const WANTED_METRICS: ReadonlyArray<{ key: string; label: string; pattern: RegExp }> = [
  { key: 'meanReward', label: 'mean reward', pattern: /^meanReward$/ },
  { key: 'accuracy', label: 'held-out accuracy', pattern: /^accuracy$/ },
  { key: 'effectiveTaskRatio', label: 'effective task ratio', pattern: /^effectiveTaskRatio$/ },
  { key: 'meanDifficulty', label: 'mean difficulty of selected tasks', pattern: /^meanDifficulty$/ },
  { key: 'replayReuse', label: 'replay reuse', pattern: /reuse/i },
  { key: 'staleness', label: 'staleness', pattern: /stale/i },
];

const EVAL = /^eval\/(.+)\/(mean|pass)@(\d+)$/;

const toolCount = (label: string, description: string): MetricInfo => ({
  label,
  unit: 'number',
  description: `${description} in the step's agent episodes.`,
});

/** The tool-use figures of agent runs (agents/tool-figures.ts, docs/agents.md). */
const TOOL_FIGURES: Record<string, MetricInfo> = {
  'tool/episodes': toolCount('agent episodes', 'Episodes with a trajectory'),
  'tool/calls': toolCount('tool calls', 'Tool calls'),
  'tool/valid_calls': toolCount('valid tool calls', 'Tool calls that returned a result'),
  'tool/invalid_calls': toolCount('invalid tool calls', 'Tool calls that returned no result (any reason)'),
  'tool/malformed': toolCount('malformed tool calls', 'Tool calls that could not be parsed'),
  'tool/unknown_tool': toolCount('calls of unknown tools', 'Calls naming a tool the environment lacks'),
  'tool/invalid_arguments': toolCount(
    'calls with invalid arguments',
    'Calls whose arguments failed the schema',
  ),
  'tool/errors': toolCount('tool errors', 'Calls whose tool raised an error'),
  'tool/timeouts': toolCount('tool timeouts', 'Calls whose tool gave no result in time'),
  'tool/calls_per_episode': toolCount('tool calls per episode', 'Mean tool calls per episode'),
  'tool/invalid_call_ratio': {
    label: 'invalid-call ratio',
    unit: 'ratio',
    description: "Share of the step's tool calls that were invalid (0 when there were none).",
  },
  'tool/episodes_without_calls': toolCount('episodes without tool calls', 'Episodes that called no tool'),
  'tool/turns_per_episode': toolCount('turns per episode', 'Mean model turns per episode'),
};

/** Label and unit of any key: known ones by name, evaluation sets by their pattern, the rest as they are. */
export function metricInfo(key: string): MetricInfo {
  const known = KNOWN_METRICS.find(([k]) => k === key);
  if (known) return known[1];
  const e = EVAL.exec(key);
  if (e)
    return {
      label: `${e[1]} ${e[2]}@${e[3]}`,
      unit: 'ratio',
      description: `Evaluation set ${e[1]}: ${e[2] === 'mean' ? 'mean reward' : 'pass rate'} of ${e[3]} sample(s) per task.`,
    };
  const domain = /^accuracy\/(.+)$/.exec(key);
  if (domain)
    return {
      label: `accuracy (${domain[1]})`,
      unit: 'ratio',
      description: `Held-out accuracy on ${domain[1]}.`,
    };
  const tool = TOOL_FIGURES[key];
  if (tool) return tool;
  if (/Ms$/.test(key)) return { label: key, unit: 'ms', description: 'Milliseconds.' };
  if (/Ratio$|Rate$/.test(key)) return { label: key, unit: 'ratio', description: '' };
  return { label: key, unit: 'number', description: '' };
}

/** Known keys first (catalogue order), then evaluation sets, then the rest in first-seen order. */
export function orderMetricKeys(keys: Iterable<string>): string[] {
  const all = [...new Set(keys)];
  const known = KNOWN_METRICS.map(([k]) => k).filter((k) => all.includes(k));
  const evals = all.filter((k) => EVAL.test(k) || k.startsWith('accuracy/'));
  const rest = all.filter((k) => !known.includes(k) && !evals.includes(k));
  return [...known, ...evals, ...rest];
}
