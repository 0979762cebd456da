// Where BOTS keeps each task's Beta posterior: on the shared (lazy) track, on a clipped group's
// track, or one by one (explicit); the (f0, f1) grid the searches read; and the clipped sides
// built once the capability leaves [0, 1].
import { ClipSide, type TrackScalars } from './bots-clip-side.ts';
import { ExplicitSlots } from './bots-explicit.ts';
import type { BotsParams } from './bots-params.ts';
import { type BotsPosteriorView, EXPLICIT, GROUPED_ABOVE, GROUPED_BELOW, SHARED } from './bots-search.ts';
import { autoGrid, CellIndex } from './cell-index.ts';

/**
 * With `shortlist: 0`, above this many tasks (or with `grid` set) Thompson steps go through the grid;
 * at or below it a draw for every task costs ≤ ~0.6 ms, and keeps the selection benchmark's
 * 4,000-task scenario on the same random sequence as before.
 */
export const EXACT_GRID_MIN = 4096;

/** A track a task that is not explicit would follow, and the state code that says which. */
export interface TaskHome {
  state: number;
  track: TrackScalars;
}

export class BotsPosterior {
  private readonly params: BotsParams;
  /** f0 per task, and f1 − f0; NaN where a task lacks either reference. */
  f0 = new Float64Array(0);
  delta = new Float64Array(0);
  /** Scalars of the shared (lazy) posterior of tasks never observed and never clamped. */
  shared: TrackScalars;
  /**
   * Where each task's posterior lives (SHARED, EXPLICIT, GROUPED_BELOW, GROUPED_ABOVE), and slot
   * arrays of the explicit tasks in the order they became explicit (task, α, β, f0, Δ, last observed
   * step), so the per-step loop over them reads memory sequentially.
   */
  where = new Uint8Array(0);
  ex = new ExplicitSlots(0);
  /** Range of capabilities applied so far (kept in the checkpoint). */
  cSeenMin = 0;
  cSeenMax = 1;
  /**
   * The clipped tracks: four sides (below 0 → 0, below 0 → 1, above 1 → 1, above 1 → 0), built
   * when c first leaves [0, 1], and each task's position on its side below and above (−1: none).
   */
  sides: ClipSide[] | null = null;
  private posBelow = new Int32Array(0);
  private posAbove = new Int32Array(0);
  private cells: CellIndex | null = null;

  constructor(params: BotsParams) {
    this.params = params;
    this.shared = { a: params.priorAlpha, a2: params.priorBeta, b: 0, e: 0 };
  }

  get size(): number {
    return this.where.length;
  }

  /** Whether the searches have the grid (a shortlist or an exact Thompson step at scale). */
  get gridded(): boolean {
    return this.cells !== null;
  }

  /** The track a task that is not explicit follows: the shared one, or its clipped group's. */
  private trackScalars(k: number): TrackScalars {
    const st = this.where[k]!;
    if (st === SHARED) return this.shared;
    const sides = this.sides!;
    const up = this.delta[k]! > 0;
    return st === GROUPED_BELOW
      ? sides[up ? 0 : 1]!.groupAt(this.posBelow[k]!)
      : sides[up ? 2 : 3]!.groupAt(this.posAbove[k]!);
  }

  alphaOf(k: number): number {
    if (this.where[k] === EXPLICIT) return this.ex.a[this.ex.slotOf[k]!]!;
    const t = this.trackScalars(k);
    return t.a + t.b * this.f0[k]! + t.e * this.delta[k]!;
  }

  betaOf(k: number): number {
    if (this.where[k] === EXPLICIT) return this.ex.b[this.ex.slotOf[k]!]!;
    const t = this.trackScalars(k);
    return t.a2 + t.b * (1 - this.f0[k]!) - t.e * this.delta[k]!;
  }

  /** The posterior parameters of every task (materialised copies). */
  materialise(): { alpha: Float64Array; beta: Float64Array } {
    const n = this.size;
    const alpha = new Float64Array(n);
    const beta = new Float64Array(n);
    for (let k = 0; k < n; k++) {
      alpha[k] = this.alphaOf(k);
      beta[k] = this.betaOf(k);
    }
    return { alpha, beta };
  }

  searchView(): BotsPosteriorView {
    return {
      target: this.params.target,
      n: this.size,
      f0: this.f0,
      delta: this.delta,
      state: this.where,
      exTask: this.ex.task,
      exA: this.ex.a,
      exB: this.ex.b,
      explicitCount: this.ex.count,
      shared: this.shared,
      sides: this.sides,
      cells: this.cells,
      alphaOf: (k) => this.alphaOf(k),
      betaOf: (k) => this.betaOf(k),
    };
  }

  /**
   * Room for `count` tasks appended at `offset`, with their reference columns (null: none). A task
   * is explicit from the start when it lacks references, arrives mid-run, or `allExplicit`.
   */
  grow(
    weak: Float64Array | undefined,
    strong: Float64Array | undefined,
    hasRefs: boolean,
    offset: number,
    count: number,
    allExplicit: boolean,
  ): void {
    const n = offset + count;
    const growF = (a: Float64Array) => {
      const out = new Float64Array(n);
      out.set(a);
      return out;
    };
    this.f0 = growF(this.f0);
    this.delta = growF(this.delta);
    const flags = new Uint8Array(n);
    flags.set(this.where);
    this.where = flags;
    this.ex.resize(n);
    for (let i = 0; i < count; i++) {
      const k = offset + i;
      const w = weak ? weak[i]! : Number.NaN;
      const s = strong ? strong[i]! : Number.NaN;
      const ok = hasRefs && Number.isFinite(w) && Number.isFinite(s);
      this.f0[k] = ok ? w : Number.NaN;
      this.delta[k] = ok ? s - w : Number.NaN;
      // Without references a task's update is not the shared one; tasks added mid-run start at the prior.
      // Capabilities per domain give every task its own p̃ track: no shared lazy posterior.
      if (!ok || offset > 0 || allExplicit)
        this.makeExplicit(k, this.params.priorAlpha, this.params.priorBeta);
    }
    this.rebuildIndexes();
  }

  makeExplicit(k: number, a: number, b: number): void {
    let j = this.ex.slotOf[k]!;
    if (j < 0) {
      j = this.ex.add(k, this.f0[k]!, this.delta[k]!);
      this.where[k] = EXPLICIT;
    }
    this.ex.a[j] = a;
    this.ex.b[j] = b;
  }

  /** The (f0, f1) grid over the tasks with references, and the clipped tracks' orders once they exist. */
  rebuildIndexes(): void {
    const n = this.size;
    const f1 = new Float64Array(n);
    for (let k = 0; k < n; k++) f1[k] = this.f0[k]! + this.delta[k]!;
    const { shortlist, grid } = this.params;
    // The grid serves the shortlist search, and the exact Thompson step (shortlist 0) at scale.
    const gridded = shortlist > 0 ? n > shortlist : n > EXACT_GRID_MIN || grid > 0;
    this.cells = gridded
      ? new CellIndex({
          n,
          u: this.f0,
          v: f1,
          groups: null,
          // Every task with references (the others are skipped by state: they may rejoin the track).
          include: (k) => !Number.isNaN(this.f0[k]!),
          grid: this.params.grid > 0 ? this.params.grid : autoGrid(n, 1),
        })
      : null;
    // Tasks added since keep their place by threshold: the cuts are capabilities, placed again.
    if (this.sides) {
      const saved = this.sides.map((side) => side.save());
      this.buildSides();
      this.sides!.forEach((side, i) => {
        side.load(saved[i], this.delta, 'clipGroups');
      });
    }
  }

  buildSides(): void {
    const n = this.size;
    this.posBelow = new Int32Array(n).fill(-1);
    this.posAbove = new Int32Array(n).fill(-1);
    this.sides = ClipSide.build(this.f0, this.delta, this.posBelow, this.posAbove);
  }

  /**
   * Before a step at capability c: on every side, the tasks whose p̃ clamps for the first time
   * leave the shared track for a new group (explicit if they were already grouped on the other
   * side), and a cut is placed at c. Returns each side's number of clamping positions.
   */
  placeCuts(c: number): number[] {
    if (c <= this.cSeenMax && c >= this.cSeenMin && !this.sides) return [0, 0, 0, 0];
    if (!this.sides) this.buildSides();
    this.cSeenMin = Math.min(this.cSeenMin, c);
    this.cSeenMax = Math.max(this.cSeenMax, c);
    const state = this.where;
    return this.sides!.map((side) =>
      side.cutAt(c, this.shared, this.delta, (k) => {
        const st = state[k]!;
        if (st === SHARED) state[k] = side.below ? GROUPED_BELOW : GROUPED_ABOVE;
        // Clamped on both sides: no shared history left with anyone.
        else if (st !== EXPLICIT) this.makeExplicit(k, this.alphaOf(k), this.betaOf(k));
      }),
    );
  }

  /** The state a task that is not explicit would have, and its track (after this step's update); null: it must stay explicit. */
  homeOf(k: number): TaskHome | null {
    const sides = this.sides;
    const d = this.delta[k]!;
    if (!sides || d === 0) return { state: SHARED, track: this.shared };
    const up = d > 0;
    const below = sides[up ? 0 : 1]!;
    const above = sides[up ? 2 : 3]!;
    const b = this.posBelow[k]!;
    const a = this.posAbove[k]!;
    const inBelow = b < below.seen;
    const inAbove = a < above.seen;
    if (inBelow && inAbove) return null;
    if (inBelow) return { state: GROUPED_BELOW, track: below.groupAt(b) };
    if (inAbove) return { state: GROUPED_ABOVE, track: above.groupAt(a) };
    return { state: SHARED, track: this.shared };
  }
}
