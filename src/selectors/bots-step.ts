// One BOTS step over the explicit tasks not observed in it: forgetting, the pull to the prior and
// implicit evidence, one by one; a task whose posterior has come back onto its track (to rounding)
// leaves the explicit set and follows the track again.
import type { TrackScalars } from './bots-clip-side.ts';
import type { BotsPosterior } from './bots-posterior.ts';

export interface ExplicitStep {
  /** 1 − λ, and λ·α0, λ·β0. */
  keep: number;
  pullA: number;
  pullB: number;
  /** ρ·m: the weight of implicit evidence. */
  rm: number;
  /** This step's number. */
  now: number;
  /** The shared track after this step (not yet installed in the posterior). */
  nextShared: TrackScalars;
}

/**
 * Update every explicit task not observed this step. `implicitRate(k)` is the pass rate implicit
 * evidence aims at (NaN: none); `mayRejoin(k)` says whether task k may go back onto a track.
 */
export function stepExplicitTasks(
  post: BotsPosterior,
  step: ExplicitStep,
  lambda: number,
  implicitRate: (k: number) => number,
  mayRejoin: (k: number) => boolean,
): void {
  const ex = post.ex;
  const { keep, pullA, pullB, rm, now } = step;
  const exA = ex.a;
  const exB = ex.b;
  const exStamp = ex.stamp;
  // Steps after its last observation before a task's own evidence can have decayed to rounding.
  const settle = lambda > 0 ? Math.ceil(Math.log(1e-15) / Math.log(1 - lambda)) : Number.POSITIVE_INFINITY;
  let back = 0;
  for (let j = 0; j < ex.count; j++) {
    if (exStamp[j] !== now) {
      const k = ex.task[j]!;
      let p = implicitRate(k);
      if (Number.isNaN(p)) {
        // No implicit evidence (none yet, or no reference for this task): only the pull to the prior.
        exA[j] = keep * exA[j]! + pullA;
        exB[j] = keep * exB[j]! + pullB;
      } else {
        p = Math.min(1, Math.max(0, p));
        exA[j] = keep * exA[j]! + pullA + rm * p;
        exB[j] = keep * exB[j]! + pullB + rm * (1 - p);
      }
      if (now - exStamp[j]! >= settle && rejoins(post, j, step.nextShared, mayRejoin)) continue;
    }
    if (back !== j) ex.move(j, back);
    back++;
  }
  ex.count = back;
}

/**
 * Forgetting pulls every task back onto its track (the shared one, or the clipped group its
 * thresholds place it in): once its posterior agrees with it to rounding, it follows the track
 * again (so the explicit set stays ~ batch × (steps for (1 − λ)^t to reach 1e-15), whatever N is).
 * Returns whether slot j's task left the explicit set.
 */
function rejoins(
  post: BotsPosterior,
  j: number,
  nextShared: TrackScalars,
  mayRejoin: (k: number) => boolean,
): boolean {
  const ex = post.ex;
  const f = ex.f0[j]!;
  const d = ex.d[j]!;
  const k = ex.task[j]!;
  if (Number.isNaN(f) || !mayRejoin(k)) return false;
  const home = post.homeOf(k);
  const t = home?.track === post.shared ? nextShared : home?.track;
  if (!home || !t) return false;
  const la = t.a + t.b * f + t.e * d;
  const lb = t.a2 + t.b * (1 - f) - t.e * d;
  if (Math.abs(ex.a[j]! - la) <= 1e-13 * la && Math.abs(ex.b[j]! - lb) <= 1e-13 * lb) {
    post.where[k] = home.state;
    ex.slotOf[k] = -1;
    return true;
  }
  return false;
}
