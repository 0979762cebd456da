import type { CandidateView } from './sampler.ts';

/**
 * Pools the replay-method samplers (exgrpo, repo, dots_replay) choose from. A rollout never
 * delivered (uses 0) is *fresh*: on-policy for the trainer's next update. One delivered before is a
 * *past* rollout: replaying it is off-policy, and the trainer corrects for that with its stored
 * behaviour log-probs (docs/buffer.md, "Replay methods").
 */

/** Append `value` to the list under `key`, creating it. */
export function pushTo<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** Eligible fresh slots, oldest first (every rollout is trained on once, in arrival order). */
export function freshSlots(view: CandidateView): number[] {
  const out: number[] = [];
  for (let s = view.start; s < view.end; s++) if (view.eligible(s) && view.uses(s) === 0) out.push(s);
  return out;
}

/** Eligible past (already delivered) slots per task id, each list in seq order. */
export function pastByTask(
  view: CandidateView,
  keep: (slot: number) => boolean = () => true,
): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (let s = view.start; s < view.end; s++) {
    if (!view.eligible(s) || view.uses(s) === 0 || !keep(s)) continue;
    const task = view.facts(s).taskId;
    pushTo(out, task, s);
  }
  return out;
}

/** Whether a row counts as solved: its reward reaches `threshold` (a NaN reward never does). */
export const isCorrect = (reward: number, threshold: number): boolean => reward >= threshold;

/**
 * Per-task rolling accuracy: the share of correct rollouts among each task's `window` most recent
 * stored rollouts (every stored row counts, eligible or not: accuracy is the task's history).
 */
export function rollingAccuracy(view: CandidateView, window: number, threshold: number): Map<string, number> {
  const seen = new Map<string, { n: number; correct: number }>();
  for (let s = view.size - 1; s >= 0; s--) {
    if (!view.alive(s)) continue;
    const f = view.facts(s);
    const a = seen.get(f.taskId) ?? { n: 0, correct: 0 };
    seen.set(f.taskId, a);
    if (a.n >= window) continue;
    a.n++;
    if (isCorrect(f.reward, threshold)) a.correct++;
  }
  return new Map([...seen].map(([task, a]) => [task, a.correct / a.n]));
}

export type AccuracyBucket = 'unsolved' | 'low' | 'medium' | 'high' | 'solved';

/** ExGRPO's buckets: 0 unsolved, (0, 25%] low, (25%, 75%] medium, (75%, 100%) high, 100% solved. */
export function accuracyBucket(acc: number): AccuracyBucket {
  if (acc <= 0) return 'unsolved';
  if (acc <= 0.25) return 'low';
  if (acc <= 0.75) return 'medium';
  if (acc < 1) return 'high';
  return 'solved';
}

/**
 * One batch of `n` from the two pools: `replayTarget` rows from `replay` (in its order), the rest
 * fresh (oldest first). A short pool is topped up from the other, so the batch is short only when
 * both run dry — except that at most `replayCap` rows are replayed (a replay schedule's cap,
 * replay-schedule.ts). Fresh rows come first in delivery order.
 */
export function mixFreshAndReplay(
  fresh: readonly number[],
  replay: readonly number[],
  n: number,
  replayTarget: number,
  replayCap = n,
): number[] {
  const r = Math.min(replay.length, Math.max(replayTarget, n - fresh.length), n, replayCap);
  return [...fresh.slice(0, n - r), ...replay.slice(0, r)];
}
