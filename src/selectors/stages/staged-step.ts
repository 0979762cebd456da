import type { Selector, TaskFeedback } from '../types.ts';
import { isProbingSelector } from '../zoo/probe.ts';
import { isMixed, type PreRolloutStage } from './types.ts';

/** A request for rollouts: `rollouts` more samples of each task. */
export interface RolloutRequest {
  ids: readonly string[];
  rollouts: number;
  /** Why: a probe (reference set), screening, continuation after screening, or a full group. */
  phase: 'probe' | 'screen' | 'continue' | 'full';
}

/** A kept group, with the reward arrays exactly as the rollout function returned them (to find their samples). */
export interface KeptGroup extends TaskFeedback {
  pieces: readonly (readonly number[])[];
}

/** What one explorer step spent and kept, every rollout counted. */
export interface StagedStepResult {
  /** Groups kept for training (at most the wanted number). */
  kept: KeptGroup[];
  /** Rollouts spent in all: probes, screening, continuation, full groups (kept or discarded). */
  rollouts: number;
  probeRollouts: number;
  screenRollouts: number;
  /** Groups rolled out in full (kept or not), and those discarded (uniform or past the quota). */
  fullGroups: number;
  /** Full groups whose rewards were not all equal (a gradient), kept or not. */
  mixedGroups: number;
  discardedGroups: number;
  /** Tasks dropped after screening; candidates never rolled out (skipped by a stage or unused); candidates asked. */
  screenedOut: number;
  skipped: number;
  asked: number;
  rounds: number;
}

export interface StagedStepOptions {
  want: number;
  groupSize: number;
  /** Rounds a refilling step may take (default: the largest stage `maxRounds`, else 8). */
  maxRounds?: number;
  step?: number;
}

type Ctx = { step: number } | undefined;
type Step<T> = Generator<RolloutRequest, T, number[][]>;

/**
 * One explorer step with pre-rollout stages, as a generator of rollout requests so the same logic
 * drives a synchronous simulator and an asynchronous policy: probe (DOTS's reference set, not
 * trained on), ask the selector for candidates, let stages skip some (GRESO), screen (SPEED) and
 * continue the survivors, roll out full groups, keep those every stage keeps (DAPO), feed every
 * group back to the selector and the stages, and refill while a stage asks for it.
 */
export function* stagedStep(
  selector: Selector,
  stages: readonly PreRolloutStage[],
  o: StagedStepOptions,
): Step<StagedStepResult> {
  const res: StagedStepResult = {
    kept: [],
    rollouts: 0,
    probeRollouts: 0,
    screenRollouts: 0,
    fullGroups: 0,
    mixedGroups: 0,
    discardedGroups: 0,
    screenedOut: 0,
    skipped: 0,
    asked: 0,
    rounds: 0,
  };
  const G = o.groupSize;
  const refills = stages.some((s) => s.refills);
  const stageRounds = Math.max(0, ...stages.map((s) => s.maxRounds ?? 0));
  const maxRounds = refills ? (o.maxRounds ?? (stageRounds || 8)) : 1;
  const ctx: Ctx = o.step !== undefined ? { step: o.step } : undefined;
  yield* probe(selector, G, res, ctx);
  const screenK = Math.max(0, ...stages.map((s) => s.screen?.(G) ?? 0));
  while (res.kept.length < o.want && res.rounds < maxRounds) {
    res.rounds++;
    const { ids, ask } = candidates(selector, stages, o.want - res.kept.length, res, ctx);
    const groups: TaskFeedback[] = [];
    const full =
      screenK > 0
        ? yield* screenThenContinue(ids, stages, screenK, G, res, groups)
        : yield* fullGroups(ids, G, res);
    keepGroups(full, stages, o.want, res);
    groups.push(...full);
    selector.feedback(groups, ctx);
    for (const s of stages) s.observe?.(groups);
    if (ids.length === 0 && ask === 0) break;
  }
  return res;
}

/** DOTS's reference set: rolled out and fed back, never trained on. */
function* probe(selector: Selector, G: number, res: StagedStepResult, ctx: Ctx): Step<void> {
  if (!isProbingSelector(selector)) return;
  const ids = selector.probe();
  if (ids.length === 0) return;
  const rewards = yield { ids, rollouts: G, phase: 'probe' };
  res.probeRollouts += ids.length * G;
  res.rollouts += ids.length * G;
  selector.feedback(
    ids.map((taskId, i) => ({ taskId, rewards: rewards[i]! })),
    ctx,
  );
}

/** A round's candidates: what the stages ask of the selector, then what they admit. */
function candidates(
  selector: Selector,
  stages: readonly PreRolloutStage[],
  need: number,
  res: StagedStepResult,
  ctx: Ctx,
): { ids: string[]; ask: number } {
  const ask = stages.reduce((n, s) => (s.candidates ? s.candidates(n) : n), need);
  res.asked += ask;
  let ids = selector.select(ask, ctx);
  // Admission: without an admitting stage, a round rolls out at most what the stages asked for.
  const limit = stages.some((s) => s.candidates && !s.admit) ? ask : need;
  for (const s of stages) if (s.admit) ids = s.admit(ids, limit);
  if (ids.length > limit) ids = ids.slice(0, limit);
  res.skipped += Math.max(0, ask - ids.length);
  return { ids, ask };
}

/** Screen every candidate with `screenK` rollouts; those every stage lets through continue to G. */
function* screenThenContinue(
  ids: readonly string[],
  stages: readonly PreRolloutStage[],
  screenK: number,
  G: number,
  res: StagedStepResult,
  screenedOut: TaskFeedback[],
): Step<KeptGroup[]> {
  const screened = yield { ids, rollouts: screenK, phase: 'screen' };
  res.screenRollouts += ids.length * screenK;
  res.rollouts += ids.length * screenK;
  const go: number[] = [];
  ids.forEach((taskId, i) => {
    if (stages.every((s) => !s.continueAfterScreen || s.continueAfterScreen(screened[i]!))) go.push(i);
    else {
      res.screenedOut++;
      screenedOut.push({ taskId, rewards: screened[i]! });
    }
  });
  const goIds = go.map((i) => ids[i]!);
  const rest = goIds.length > 0 ? yield { ids: goIds, rollouts: G - screenK, phase: 'continue' } : [];
  res.rollouts += goIds.length * (G - screenK);
  return go.map((i, j) => ({
    taskId: ids[i]!,
    rewards: [...screened[i]!, ...rest[j]!],
    pieces: [screened[i]!, rest[j]!],
  }));
}

/** A full group of G rollouts for every candidate. */
function* fullGroups(ids: readonly string[], G: number, res: StagedStepResult): Step<KeptGroup[]> {
  const rewards = ids.length > 0 ? yield { ids, rollouts: G, phase: 'full' } : [];
  res.rollouts += ids.length * G;
  return ids.map((taskId, i) => ({ taskId, rewards: rewards[i]!, pieces: [rewards[i]!] }));
}

/** Keep the full groups every stage keeps, up to the wanted number; count the rest as discarded. */
function keepGroups(
  full: readonly KeptGroup[],
  stages: readonly PreRolloutStage[],
  want: number,
  res: StagedStepResult,
): void {
  res.fullGroups += full.length;
  for (const g of full) {
    if (isMixed(g.rewards)) res.mixedGroups++;
    const keep = stages.every((s) => !s.keep || s.keep(g.rewards));
    if (keep && res.kept.length < want) res.kept.push(g);
    else res.discardedGroups++;
  }
}

/** Drive a staged step with a synchronous rollout function. */
export function runStagedStep(
  selector: Selector,
  stages: readonly PreRolloutStage[],
  o: StagedStepOptions,
  rollout: (req: RolloutRequest) => number[][],
): StagedStepResult {
  const gen = stagedStep(selector, stages, o);
  let next = gen.next();
  while (!next.done) next = gen.next(rollout(next.value));
  return next.value;
}

/** Drive a staged step with an asynchronous rollout function (a real policy). */
export async function runStagedStepAsync(
  selector: Selector,
  stages: readonly PreRolloutStage[],
  o: StagedStepOptions,
  rollout: (req: RolloutRequest) => Promise<number[][]>,
): Promise<StagedStepResult> {
  const gen = stagedStep(selector, stages, o);
  let next = gen.next();
  while (!next.done) next = gen.next(await rollout(next.value));
  return next.value;
}
