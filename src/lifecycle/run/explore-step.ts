import { performance } from 'node:perf_hooks';
import { toolStepFigures } from '../../agents/tool-figures.ts';
import type { Experience } from '../../core/experience.ts';
import type { RolloutFailure } from '../../core/explore-result.ts';
import type { RejectedInput } from '../../core/rejected.ts';
import { rejectedPayload } from '../../core/rejected.ts';
import { groupIdOf } from '../../core/rollout-ids.ts';
import type { Task } from '../../core/task.ts';
import { collectTaskRewards } from '../../operators/experience/pass-rate.ts';
import { exploreInRounds, type LiveRoundsResult } from '../../selectors/stages/live-rounds.ts';
import { roundsSelector } from '../../selectors/stages/staged-selector.ts';
import { pickExamples } from './evaluation/rollout-examples.ts';
import { filterRefillOf } from './filter-refill.ts';
import type { RunState } from './run-state.ts';
import type { ExploreNumbers } from './step-record.ts';
import { quarantineBadTokenRows } from './token-check.ts';

/** One explorer step's output: the experiences to write and the explorer's half of the step record. */
export interface ExploredStep {
  rows: Experience[];
  exploreMs: number;
  numbers: ExploreNumbers;
}

const mean = (xs: readonly number[]) =>
  xs.length === 0 ? Number.NaN : xs.reduce((a, b) => a + b, 0) / xs.length;

/** Experiences in the order of the tasks they belong to (then by run index). */
function orderLike(tasks: readonly Task[], exps: Experience[]): Experience[] {
  const rank = new Map(tasks.map((t, i) => [t.id, i] as const));
  return exps.sort(
    (a, b) => (rank.get(a.taskId) ?? 0) - (rank.get(b.taskId) ?? 0) || a.runIndex - b.runIndex,
  );
}

/** Tasks whose group for this step is in the hold-back are not rolled out again. */
function splitHeldBack(run: RunState, tasks: Task[], atStep: number) {
  const reused: Experience[] = [];
  const fresh: Task[] = [];
  for (const t of tasks) {
    const gid = groupIdOf(atStep, t.id);
    const group = run.holdback.get(gid);
    if (group && group.length >= run.config.explorer.repeat) {
      reused.push(...group.sort((a, b) => a.runIndex - b.runIndex));
      run.holdback.delete(gid);
    } else fresh.push(t);
  }
  return { reused, fresh };
}

/**
 * Select, roll out, feed back, run the experience operators. The selector is asked for
 * `batchTasks + extraGroups` tasks; with refill (reward_std_filter `refill: true`, filter-refill.ts)
 * the step draws rounds until `targetGroups` groups pass, and the selector hears about every group.
 */
export async function exploreStep(run: RunState, atStep: number): Promise<ExploredStep> {
  const { parts, hooks, config } = run;
  const te = performance.now();
  const wanted = config.explorer.batchTasks + (config.explorer.extraGroups ?? 0);
  await hooks.emit('beforeSelect', { step: atStep, batchTasks: wanted });
  const version = run.explorerVersion;
  // Stages that screen or filter groups (speed, dapo_ds) select, roll out and feed back in rounds.
  const staged = await exploreStaged(run, atStep, wanted, version);
  const ids = staged ? staged.tasks.map((t) => t.id) : parts.selector.select(wanted, { step: atStep });
  const chosen: Task[] = ids.map((id) => run.taskById.get(id)!).filter(Boolean);
  const selected = await hooks.emit('afterSelect', { step: atStep, rows: chosen });
  const rejectedNow: RejectedInput[] = run.vetoes(selected.rejected);

  const { reused, fresh } = staged
    ? { reused: [], fresh: [] }
    : splitHeldBack(run, selected.payload.rows, atStep);
  // One version per step: the server is routed to it before the first request (weight sync).
  if (!staged) await parts.serve?.(version);
  const explored = staged
    ? stagedExplored(staged, selected.payload.rows)
    : await (parts.rollouts ?? parts.explorer).explore(fresh, atStep, version);
  if (staged) rejectedNow.push(...droppedRows(run, staged));
  const tokenChecked = quarantineBadTokenRows(explored.experiences);
  explored.experiences = tokenChecked.rows;
  rejectedNow.push(...tokenChecked.rejected);
  if (reused.length > 0)
    explored.experiences = orderLike(selected.payload.rows, [...reused, ...explored.experiences]);
  rejectedNow.push(...failureRows(run, explored.failures));
  const rolled = await hooks.emit('afterRollout', {
    step: atStep,
    rows: explored.experiences,
    failures: explored.failures,
  });
  rejectedNow.push(...run.vetoes(rolled.rejected));
  const rollouts = rolled.payload.rows;

  // Feedback first: the selector learns from every group, including the ones filters drop below.
  const { groups, mixed } = await feedBack(run, atStep, staged, rollouts);

  run.examples.add(pickExamples(atStep, rollouts));

  const { processed, operators } = await experienceOperators(run, atStep, rollouts, rejectedNow);
  const afterOps = await hooks.emit('afterExperienceOps', { step: atStep, rows: processed.rows, operators });
  rejectedNow.push(...run.vetoes(afterOps.rejected));
  await run.recordRejected(rejectedNow);

  run.count('rollouts', rollouts.length);
  countGivenUp(run, rollouts);
  run.count('failedGroups', explored.failures.length);
  if (staged) run.count('rolloutsSpent', staged.numbers.rolloutsSpent);
  const difficulties = selected.payload.rows
    .map((t) => t.features.difficulty)
    .filter((d): d is number => typeof d === 'number');
  const rewards = rollouts.map((e) => e.reward).filter((r) => Number.isFinite(r));
  const tools = toolStepFigures(rollouts);
  return {
    rows: afterOps.payload.rows,
    exploreMs: performance.now() - te,
    numbers: {
      tasks: selected.payload.rows.length,
      rollouts: rollouts.length,
      meanReward: mean(rewards),
      effectiveTaskRatio: groups.length === 0 ? 0 : mixed / groups.length,
      meanDifficulty: mean(difficulties),
      failedGroups: explored.failures.length,
      emptyResponses: explored.metrics.emptyResponses,
      experiencesKept: afterOps.payload.rows.length,
      experiencesDropped: rollouts.length - afterOps.payload.rows.length,
      operators,
      ...(tools ? { tools } : {}),
      ...(staged ? staged.numbers : {}),
    },
  };
}

/** A staged step's kept groups as the explorer's output (only tasks the afterSelect hook kept). */
function stagedExplored(staged: LiveRoundsResult, tasks: readonly Task[]) {
  const keep = new Set(tasks.map((t) => t.id));
  return {
    experiences: staged.experiences.filter((e) => keep.has(e.taskId)),
    failures: staged.failures,
    metrics: { emptyResponses: staged.emptyResponses },
  };
}

/** Groups a stage paid for but did not train on: recorded with their reason (nothing lost silently). */
function droppedRows(run: RunState, staged: LiveRoundsResult): RejectedInput[] {
  return staged.dropped.map((d) => {
    const task = run.taskById.get(d.taskId);
    return {
      step: 'stage',
      reason: d.reason,
      rowId: d.groupId,
      file: task?.source?.file ?? '',
      row: task?.source?.row ?? -1,
      payload: rejectedPayload({ taskId: d.taskId, groupId: d.groupId, rewards: d.rewards }),
    };
  });
}

/**
 * Stages that screen or filter groups (speed, dapo_ds) select, roll out and feed back in rounds;
 * undefined when the selector has no such stage.
 */
async function exploreStaged(
  run: RunState,
  atStep: number,
  wanted: number,
  version: number,
): Promise<LiveRoundsResult | undefined> {
  const { parts, config } = run;
  const rounds = roundsSelector(parts.selector);
  if (!rounds) return undefined;
  await parts.serve?.(version);
  // A refilling reward_std_filter wants its targetGroups groups (filter-refill.ts).
  const o = {
    want: filterRefillOf(config)?.targetGroups ?? wanted,
    groupSize: config.explorer.repeat,
    step: atStep,
  };
  return exploreInRounds(rounds, o, run.taskById, (ts, round) =>
    parts.explorer.explore(ts, atStep, version, round),
  );
}

/** Groups whose rollout failed, as rejected rows naming the task's source. */
function failureRows(run: RunState, failures: readonly RolloutFailure[]): RejectedInput[] {
  return failures.map((f) => {
    const task = run.taskById.get(f.taskId);
    return {
      step: `rollout:${f.kind}`,
      reason: `${f.reason} (after ${f.attempts} attempt(s))`,
      rowId: f.groupId,
      file: task?.source?.file ?? '',
      row: task?.source?.row ?? -1,
      payload: rejectedPayload({ taskId: f.taskId, groupId: f.groupId }),
    };
  });
}

/** Feedback to the selector (from every group, before filters drop any), then the afterFeedback hook. */
async function feedBack(
  run: RunState,
  atStep: number,
  staged: LiveRoundsResult | undefined,
  rollouts: Experience[],
) {
  const groups = collectTaskRewards(rollouts);
  const feedback = staged
    ? { groups: staged.numbers.fullGroups + staged.numbers.screenedOut }
    : run.parts.selector.feedback(
        groups.map((g) => ({ taskId: g.taskId, rewards: g.rewards })),
        { step: atStep },
      );
  const mixed = groups.filter((g) => {
    const r = g.rewards.filter((x) => Number.isFinite(x));
    return r.length > 1 && r.some((x) => x !== r[0]);
  }).length;
  await run.hooks.emit('afterFeedback', { step: atStep, groups: feedback.groups, mixedGroups: mixed });
  return { groups, mixed };
}

/**
 * The experience operators over the step's rollouts; their warnings go to the run log and their
 * drops onto `rejectedNow`.
 */
async function experienceOperators(
  run: RunState,
  atStep: number,
  rollouts: Experience[],
  rejectedNow: RejectedInput[],
) {
  run.operatorSteps.reset();
  const processed = await run.parts.experienceGraph.process(rollouts);
  // Each operator's own numbers and warnings for this step: step record, hooks and run log.
  const operators = run.operatorSteps.take();
  for (const w of operators.warnings.first) run.log(`warning: step ${atStep}: experience operator ${w}`);
  if (operators.warnings.count > operators.warnings.first.length)
    run.log(
      `warning: step ${atStep}: ${operators.warnings.count - operators.warnings.first.length} more operator warning(s)`,
    );
  for (const r of processed.rejected) {
    rejectedNow.push({
      step: `exp:${r.step}`,
      reason: r.reason,
      rowId: r.row.id,
      payload: rejectedPayload({ ...r.row, tokens: undefined, logprobs: undefined, actionMask: undefined }),
    });
  }
  return { processed, operators };
}

/** Judgements a reward gave up on (the math verifier's time, size and cost limits) score 0: counted, never hidden. */
function countGivenUp(run: RunState, rollouts: readonly Experience[]): void {
  for (const e of rollouts) {
    if (e.info.reason === 'timeout') run.count('rewardTimeouts', 1);
    else if (e.info.reason === 'too_large') run.count('rewardTooLarge', 1);
    else if (e.info.reason === 'too_costly') run.count('rewardTooCostly', 1);
  }
}
