// BOTS's clipped tracks. Implicit evidence aims at p̃ = f0 + c·Δ clamped into [0, 1]. While c stays
// in [0, 1] nothing clamps, and every task never observed follows one shared affine track (four
// scalars). Once c leaves [0, 1], the tasks whose p̃ clamps get a different update: their implicit
// success is exactly 0 (or 1), whatever f0 and Δ are. That update is shared as well, so a task that
// clamped keeps the affine form
//   α = a + b·f0 + e·Δ,  β = a2 + b·(1 − f0) − e·Δ,
// with the scalars of its group: the tasks whose clamping history is the same. A task clamps at c
// exactly when c is beyond its threshold t (below: c < t; above: c > t), so tasks sorted by t, and
// cut at every capability applied beyond [0, 1], form those groups as intervals. One side holds the
// tasks that clamp to the same value on the same side of [0, 1]: four sides in all.
import { DataError } from '../core/errors.ts';
import { orderByKey } from '../core/stable-order.ts';
import type { JsonValue } from '../core/task.ts';

/** The four scalars of an affine posterior track. */
export interface TrackScalars {
  a: number;
  a2: number;
  b: number;
  e: number;
}

/** One group of a side: the positions [previous group's end, end) of its clip order. */
export interface ClipGroup extends TrackScalars {
  end: number;
  /** The capability that cut the group's end (kept to place the cut again when tasks are added). */
  cut: number;
  /** Range of Δ over the group's positions (a superset after a split). */
  dmin: number;
  dmax: number;
}

/** One step's update: forgetting, the pull to the prior, and the weight of implicit evidence. */
export interface TrackStep {
  keep: number;
  pullA: number;
  pullB: number;
  /** ρ·m, or 0 when the step has no implicit evidence. */
  rm: number;
  c: number;
}

/**
 * Apply one step to a track's scalars: implicit evidence at p̃ = f0 + c·Δ (`clipTo` null), or at a
 * constant 0 or 1 for tasks whose p̃ clamps.
 */
export function stepTrack(s: TrackScalars, u: TrackStep, clipTo: 0 | 1 | null, out: TrackScalars): void {
  const a = u.keep * s.a + u.pullA;
  const a2 = u.keep * s.a2 + u.pullB;
  if (clipTo === null) {
    out.b = u.keep * s.b + u.rm;
    out.e = u.keep * s.e + u.rm * u.c;
    out.a = a;
    out.a2 = a2;
    return;
  }
  out.b = u.keep * s.b;
  out.e = u.keep * s.e;
  out.a = clipTo === 1 ? a + u.rm : a;
  out.a2 = clipTo === 0 ? a2 + u.rm : a2;
}

/** Whether two tracks agree to rounding (then every task on either has the same posterior to ~1e-13). */
function sameTrack(x: TrackScalars, y: TrackScalars): boolean {
  const tol = 1e-13 * (Math.abs(x.a) + Math.abs(x.a2) + Math.abs(x.b));
  return (
    Math.abs(x.a - y.a) <= tol &&
    Math.abs(x.a2 - y.a2) <= tol &&
    Math.abs(x.b - y.b) <= tol &&
    Math.abs(x.e - y.e) <= tol
  );
}

export class ClipSide {
  /** True: tasks clamp when c < t; false: when c > t. */
  readonly below: boolean;
  /** The value p̃ clamps to on this side. */
  readonly clipTo: 0 | 1;
  /** Tasks in clip order (the first to clamp first), and their thresholds t. */
  readonly task: Int32Array;
  readonly at: Float64Array;
  groups: ClipGroup[] = [];

  constructor(below: boolean, clipTo: 0 | 1, task: Int32Array, at: Float64Array) {
    this.below = below;
    this.clipTo = clipTo;
    this.task = task;
    this.at = at;
  }

  /**
   * The sides of a pool: every task with references and Δ ≠ 0 is on one side below and one above.
   * `pos` receives each task's position on its side below (`posBelow`) and above (`posAbove`).
   */
  static build(
    f0: Float64Array,
    delta: Float64Array,
    posBelow: Int32Array,
    posAbove: Int32Array,
  ): ClipSide[] {
    const n = f0.length;
    // Thresholds: below, p̃ < 0 when c < −f0/Δ (Δ > 0) and p̃ > 1 when c < (1 − f0)/Δ (Δ < 0);
    // above, p̃ > 1 when c > (1 − f0)/Δ (Δ > 0) and p̃ < 0 when c > −f0/Δ (Δ < 0).
    const specs: Array<{ below: boolean; clipTo: 0 | 1; rising: boolean }> = [
      { below: true, clipTo: 0, rising: true },
      { below: true, clipTo: 1, rising: false },
      { below: false, clipTo: 1, rising: true },
      { below: false, clipTo: 0, rising: false },
    ];
    return specs.map(({ below, clipTo, rising }) => {
      const on = (d: number) => d > 0 === rising && d !== 0 && !Number.isNaN(d);
      let m = 0;
      for (let k = 0; k < n; k++) if (on(delta[k]!)) m++;
      const ids = new Int32Array(m);
      // Below, the highest threshold clamps first (ordered by −t); above, the lowest. Ties by index.
      const keys = new Float64Array(m);
      for (let k = 0, j = 0; k < n; k++) {
        if (!on(delta[k]!)) continue;
        const t = (clipTo - f0[k]!) / delta[k]!;
        ids[j] = k;
        keys[j++] = below ? -t : t;
      }
      const order = orderByKey(ids, keys);
      const pos = below ? posBelow : posAbove;
      const at = new Float64Array(m);
      for (let j = 0; j < m; j++) {
        const k = order[j]!;
        at[j] = (clipTo - f0[k]!) / delta[k]!;
        pos[k] = j;
      }
      return new ClipSide(below, clipTo, order, at);
    });
  }

  /** Positions [0, seen) have clamped at some step: none of their tasks is on the shared track. */
  get seen(): number {
    return this.groups.length === 0 ? 0 : this.groups[this.groups.length - 1]!.end;
  }

  /** How many tasks, in clip order, clamp at capability c. */
  clipCount(c: number): number {
    let lo = 0;
    let hi = this.at.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.below ? this.at[mid]! > c : this.at[mid]! < c) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Index of the group holding position `pos` (< seen). */
  groupIndexAt(pos: number): number {
    let lo = 0;
    let hi = this.groups.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.groups[mid]!.end > pos) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }

  groupAt(pos: number): ClipGroup {
    return this.groups[this.groupIndexAt(pos)]!;
  }

  /** First position of group i. */
  startOf(i: number): number {
    return i === 0 ? 0 : this.groups[i - 1]!.end;
  }

  /**
   * Put a cut where capability c puts it, before the step at c applies, and return its position.
   * Positions clamping for the first time form a new group that starts from `shared` (the shared
   * track's scalars); `joining` is called for each of their tasks first. A cut inside a group
   * splits it into two with the same scalars.
   */
  cutAt(c: number, shared: TrackScalars, delta: Float64Array, joining: (k: number) => void): number {
    const p = this.clipCount(c);
    const seen = this.seen;
    if (p > seen) {
      let dmin = Number.POSITIVE_INFINITY;
      let dmax = Number.NEGATIVE_INFINITY;
      for (let j = seen; j < p; j++) {
        const k = this.task[j]!;
        joining(k);
        const d = delta[k]!;
        if (d < dmin) dmin = d;
        if (d > dmax) dmax = d;
      }
      this.groups.push({ a: shared.a, a2: shared.a2, b: shared.b, e: shared.e, end: p, cut: c, dmin, dmax });
    } else if (p > 0) {
      const i = this.groupIndexAt(p - 1);
      const g = this.groups[i]!;
      if (g.end !== p) this.groups.splice(i, 0, { ...g, end: p, cut: c });
    }
    return p;
  }

  /** Apply a step: groups up to position p clamp, the others follow p̃; neighbours that agree merge. */
  step(p: number, u: TrackStep): void {
    for (const g of this.groups) stepTrack(g, u, g.end <= p ? this.clipTo : null, g);
    const kept: ClipGroup[] = [];
    for (const g of this.groups) {
      const last = kept[kept.length - 1];
      if (last && sameTrack(last, g)) {
        // The later group's end and cut survive; the scalars are the earlier's (equal to rounding).
        last.end = g.end;
        last.cut = g.cut;
        last.dmin = Math.min(last.dmin, g.dmin);
        last.dmax = Math.max(last.dmax, g.dmax);
      } else kept.push(g);
    }
    this.groups = kept;
  }

  /**
   * Range of the posterior mean over group i's tasks. Each has f0 = clipTo − t·Δ, so
   * α = a + b·clipTo + Δ·(e − b·t): bilinear in (t, Δ), extreme at the corners of their ranges.
   */
  meanRange(i: number): [number, number] {
    const g = this.groups[i]!;
    const t1 = this.at[this.startOf(i)]!;
    const t2 = this.at[g.end - 1]!;
    const s = g.a + g.a2 + g.b;
    const base = g.a + g.b * this.clipTo;
    let lo = Number.POSITIVE_INFINITY;
    let hi = Number.NEGATIVE_INFINITY;
    for (const t of [t1, t2])
      for (const d of [g.dmin, g.dmax]) {
        const x = d * (g.e - g.b * t);
        if (x < lo) lo = x;
        if (x > hi) hi = x;
      }
    return [(base + lo) / s, (base + hi) / s];
  }

  save(): JsonValue {
    return this.groups.map((g) => [g.cut, g.a, g.a2, g.b, g.e]);
  }

  /** Restore groups saved by `save`, placing each cut again in this (possibly larger) pool. */
  load(data: unknown, delta: Float64Array, where: string): void {
    const ok =
      Array.isArray(data) &&
      data.every(
        (g) =>
          Array.isArray(g) &&
          g.length === 5 &&
          typeof g[0] === 'number' &&
          g.every((x) => typeof x === 'number' || x === null),
      );
    if (!ok) throw new DataError({ message: `bots.load: ${where} must be a list of [cut, a, a2, b, e]` });
    this.groups = [];
    let start = 0;
    const num = (x: number | null) => x ?? Number.NaN;
    for (const [cut, a, a2, b, e] of data as Array<
      [number, number | null, number | null, number | null, number | null]
    >) {
      const end = this.clipCount(cut);
      if (end <= start) continue;
      let dmin = Number.POSITIVE_INFINITY;
      let dmax = Number.NEGATIVE_INFINITY;
      for (let j = start; j < end; j++) {
        const d = delta[this.task[j]!]!;
        if (d < dmin) dmin = d;
        if (d > dmax) dmax = d;
      }
      // null: a group without tasks on it (a state from before groups; its tasks are all explicit).
      this.groups.push({ a: num(a), a2: num(a2), b: num(b), e: num(e), end, cut, dmin, dmax });
      start = end;
    }
  }
}
