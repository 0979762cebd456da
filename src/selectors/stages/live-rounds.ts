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
  const rounds = new RoundRecorder(o.step, taskById, roll);
  const res: StagedStepResult = await runStagedStepAsync(
    selector.inner,
    selector.stages,
    {
      want: o.want,
      groupSize: o.groupSize,
      step: o.step,
      ...(o.maxRounds ? { maxRounds: o.maxRounds } : {}),
    },
    (req) => rounds.rollout(req),
  );
  const { used, experiences, tasks } = keptRows(res, rounds, taskById);
  const order = rounds.order;
  return {
    tasks,
    experiences,
    failures: rounds.failures,
    emptyResponses: rounds.emptyResponses,
    dropped: droppedGroups(order, used, selector.stages.map((s) => s.type).join('+')),
    continued: order.filter((p) => p.phase === 'continue').map((p) => p.taskId),
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

/**
 * Runs a staged step's rollout requests for real, and remembers every piece rolled out (by its
 * reward array, which the staged step hands back in its kept groups) with its relabelled rows.
 */
class RoundRecorder {
  readonly pieces = new Map<readonly number[], Piece>();
  readonly order: Piece[] = [];
  readonly failures: RolloutFailure[] = [];
  emptyResponses = 0;
  private round = 0;
  private screenK = 0;
  private readonly step: number;
  private readonly taskById: ReadonlyMap<string, Task>;
  private readonly roll: LiveRollout;

  constructor(step: number, taskById: ReadonlyMap<string, Task>, roll: LiveRollout) {
    this.step = step;
    this.taskById = taskById;
    this.roll = roll;
  }

  async rollout(req: RolloutRequest): Promise<number[][]> {
    if (req.phase === 'screen' || req.phase === 'full') this.round++;
    if (req.phase === 'screen') this.screenK = req.rollouts;
    const r = req.phase === 'probe' ? 0 : this.round;
    const tasks = req.ids.map((id) => this.taskById.get(id)).filter((t): t is Task => t !== undefined);
    const out = await this.roll(tasks, { repeat: req.rollouts, salt: `${req.phase}${r}` });
    this.failures.push(...out.failures);
    this.emptyResponses += out.metrics.emptyResponses;
    const byTask = new Map<string, Experience[]>();
    for (const e of out.experiences) byTask.set(e.taskId, [...(byTask.get(e.taskId) ?? []), e]);
    return req.ids.map((taskId) => {
      const base = groupIdOf(this.step, taskId);
      const groupId = req.phase === 'probe' ? `${base}~probe` : r > 1 ? `${base}~r${r}` : base;
      const offset = req.phase === 'continue' ? this.screenK : 0;
      const rows = (byTask.get(taskId) ?? [])
        .sort((a, b) => a.runIndex - b.runIndex)
        .map((e) => relabel(e, groupId, offset));
      const rewards = rows.map((e) => e.reward);
      const piece = { taskId, round: r, phase: req.phase, groupId, rewards, rows };
      this.pieces.set(rewards, piece);
      this.order.push(piece);
      return rewards;
    });
  }
}

/** The kept groups' rows and tasks, in the order they were kept, and the pieces they used. */
function keptRows(
  res: StagedStepResult,
  rounds: RoundRecorder,
  taskById: ReadonlyMap<string, Task>,
): { used: Set<readonly number[]>; experiences: Experience[]; tasks: Task[] } {
  const used = new Set<readonly number[]>();
  const experiences: Experience[] = [];
  const tasks: Task[] = [];
  for (const g of res.kept) {
    for (const p of g.pieces) {
      used.add(p);
      experiences.push(...(rounds.pieces.get(p)?.rows ?? []));
    }
    const t = taskById.get(g.taskId);
    if (t) tasks.push(t);
  }
  return { used, experiences, tasks };
}

/** Every piece not trained on (a continuation goes with its screening), with its reason. */
function droppedGroups(
  order: readonly Piece[],
  used: ReadonlySet<readonly number[]>,
  types: string,
): StageDroppedGroup[] {
  const dropped: StageDroppedGroup[] = [];
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
  return dropped;
}
