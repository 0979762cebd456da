import type { Experience } from '../../core/experience.ts';
import type { ExploreResult, ExploreRound, RolloutFailure } from '../../core/explore-result.ts';
import { experienceIdOf, groupIdOf } from '../../core/rollout-ids.ts';
import type { Task } from '../../core/task.ts';
import type { StagedSelector } from './staged-selector.ts';
import { type RolloutRequest, runStagedStepAsync, type StagedStepResult } from './staged-step.ts';

/** Rolls tasks out for one round: `round.repeat` rollouts each, seeded by `round.salt`. */
export type LiveRollout = (tasks: Task[], round: ExploreRound) => Promise<ExploreResult>;

/** What a staged step spent, for the step record (the names of staged-step.ts; `rolloutsSpent` is its `rollouts`). */
export type StageRoundNumbers = {
  rolloutsSpent: number;
  probeRollouts: number;
  screenRollouts: number;
  fullGroups: number;
  mixedGroups: number;
  discardedGroups: number;
  screenedOut: number;
  skipped: number;
  asked: number;
  rounds: number;
};

/** A group rolled out and paid for but not trained on: a probe, a screened-out task, a discarded group. */
export interface StageDroppedGroup {
  taskId: string;
  groupId: string;
  reason: string;
  rewards: number[];
}

export interface LiveRoundsResult {
  /** Tasks whose groups are kept, in the order they were kept. */
  tasks: Task[];
  /** The kept groups' experiences (screening rollouts first, then the continuation). */
  experiences: Experience[];
  failures: RolloutFailure[];
  emptyResponses: number;
  dropped: StageDroppedGroup[];
  /** Tasks that went on to their full group after screening, in order. */
  continued: string[];
  numbers: StageRoundNumbers;
}

interface Piece {
  taskId: string;
  round: number;
  phase: RolloutRequest['phase'];
  groupId: string;
  rewards: number[];
  rows: Experience[];
}

function relabel(e: Experience, groupId: string, offset: number): Experience {
  if (groupId === e.groupId && offset === 0) return e;
  const runIndex = e.runIndex + offset;
  return { ...e, groupId, runIndex, id: experienceIdOf(groupId, runIndex) };
}

const meanOf = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);

/**
 * One live explorer step with stages that take rounds (SPEED screening, DAPO dynamic sampling):
 * drives the benches' staged step (staged-step.ts, which also feeds the selector and the stages)
 * with real rollouts. Each round's rollouts get their own seeds; a continuation's rollouts follow
 * the screening ones in the same group (run indices k..G−1); a task rolled out again in a later
 * round of the same step gets its own group id (`…~r2`). Every group not trained on is returned
 * in `dropped` with its reason, so the caller records it.
 */
export async function exploreInRounds(
  selector: StagedSelector,
  o: { want: number; groupSize: number; step: number; maxRounds?: number },
  taskById: ReadonlyMap<string, Task>,
  roll: LiveRollout,
): Promise<LiveRoundsResult> {
  const pieces = new Map<readonly number[], Piece>();
  const order: Piece[] = [];
  const failures: RolloutFailure[] = [];
  let emptyResponses = 0;
  let round = 0;
  let screenK = 0;
  const rollout = async (req: RolloutRequest): Promise<number[][]> => {
    if (req.phase === 'screen' || req.phase === 'full') round++;
    if (req.phase === 'screen') screenK = req.rollouts;
    const r = req.phase === 'probe' ? 0 : round;
    const tasks = req.ids.map((id) => taskById.get(id)).filter((t): t is Task => t !== undefined);
    const out = await roll(tasks, { repeat: req.rollouts, salt: `${req.phase}${r}` });
    failures.push(...out.failures);
    emptyResponses += out.metrics.emptyResponses;
    const byTask = new Map<string, Experience[]>();
    for (const e of out.experiences) byTask.set(e.taskId, [...(byTask.get(e.taskId) ?? []), e]);
    return req.ids.map((taskId) => {
      const base = groupIdOf(o.step, taskId);
      const groupId = req.phase === 'probe' ? `${base}~probe` : r > 1 ? `${base}~r${r}` : base;
      const offset = req.phase === 'continue' ? screenK : 0;
      const rows = (byTask.get(taskId) ?? [])
        .sort((a, b) => a.runIndex - b.runIndex)
        .map((e) => relabel(e, groupId, offset));
      const rewards = rows.map((e) => e.reward);
      const piece = { taskId, round: r, phase: req.phase, groupId, rewards, rows };
      pieces.set(rewards, piece);
      order.push(piece);
      return rewards;
    });
  };
  const res: StagedStepResult = await runStagedStepAsync(
    selector.inner,
    selector.stages,
    {
      want: o.want,
      groupSize: o.groupSize,
      step: o.step,
      ...(o.maxRounds ? { maxRounds: o.maxRounds } : {}),
    },
    rollout,
  );

  const used = new Set<readonly number[]>();
  const experiences: Experience[] = [];
  const tasks: Task[] = [];
  for (const g of res.kept) {
    for (const p of g.pieces) {
      used.add(p);
      experiences.push(...(pieces.get(p)?.rows ?? []));
    }
    const t = taskById.get(g.taskId);
    if (t) tasks.push(t);
  }
  const continued = order.filter((p) => p.phase === 'continue').map((p) => p.taskId);
  const dropped: StageDroppedGroup[] = [];
  const types = selector.stages.map((s) => s.type).join('+');
  for (const p of order) {
    if (used.has(p.rewards) || p.phase === 'continue') continue;
    const rest = order.find((q) => q.phase === 'continue' && q.round === p.round && q.taskId === p.taskId);
    const rewards = rest ? [...p.rewards, ...rest.rewards] : p.rewards;
    const reason =
      p.phase === 'probe'
        ? 'reference-set probe (not trained on)'
        : p.phase === 'screen' && !rest
          ? `screened out by ${types}: pass rate ${meanOf(rewards)} over ${rewards.length} screening rollout(s)`
          : rewards.length > 1 && rewards.some((x) => x !== rewards[0])
            ? `discarded by ${types}: the step already had its groups`
            : `discarded by ${types}: group rewards all equal (no gradient)`;
    dropped.push({ taskId: p.taskId, groupId: p.groupId, reason, rewards });
  }
  return {
    tasks,
    experiences,
    failures,
    emptyResponses,
    dropped,
    continued,
    numbers: {
      rolloutsSpent: res.rollouts,
      probeRollouts: res.probeRollouts,
      screenRollouts: res.screenRollouts,
      fullGroups: res.fullGroups,
      mixedGroups: res.mixedGroups,
      discardedGroups: res.discardedGroups,
      screenedOut: res.screenedOut,
      skipped: res.skipped,
      asked: res.asked,
      rounds: res.rounds,
    },
  };
}
