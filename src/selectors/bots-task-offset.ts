// BOTS's per-task offset (`taskOffset` η > 0, opt-in). Implicit evidence places every task at
// p̃ = f0 + c·Δ, the point its references give at the learner's (domain's) capability, and
// forgetting pulls an observed task's posterior back onto that track within a few steps. Inside a
// level that is half learnt, some tasks are already solved and some still out of reach; the track
// puts them all near p* again, so they are re-picked and come back all-1 or all-0 (no gradient).
// Each observed task keeps a logit offset u from the track, moved toward what its own groups showed:
//   u ← u + η·(logit r̃ − (logit p̃ + u)),  r̃ = (r̄·n + ½)/(n + 1)  (n rewards; never exactly 0 or 1),
// and its implicit evidence aims at σ(logit p̃ + u) instead of p̃. The offset is relative to the
// track, so it follows the level as the capability moves; tasks never observed have u = 0.
import { DataError } from '../core/errors.ts';
import type { JsonValue } from '../core/task.ts';
import { decodeArray, encodeArray } from './state-codec.ts';

/** Pass rates are clamped into [EDGE, 1 − EDGE] before taking logits (|logit| ≤ 4.6). */
const EDGE = 0.01;
/** The most an offset can move a task from its track, in logits. */
const MAX_OFFSET = 6;

const logit = (p: number): number => {
  const q = Math.min(Math.max(p, EDGE), 1 - EDGE);
  return Math.log(q / (1 - q));
};

export class TaskOffsets {
  private u = new Float64Array(0);
  private readonly rate: number;

  /** `rate` is η: the share of the gap between the task's own logit and its shifted track closed per group. */
  constructor(rate: number) {
    this.rate = rate;
  }

  grow(n: number): void {
    const out = new Float64Array(n);
    out.set(this.u.subarray(0, Math.min(n, this.u.length)));
    this.u = out;
  }

  /** Task k's offset in logits (0 until observed). */
  of(k: number): number {
    return this.u[k]!;
  }

  /** Move task k's offset toward a group of `count` rewards with evidence rate `r` against track `track`. */
  observe(k: number, r: number, count: number, track: number): void {
    if (!Number.isFinite(track) || count <= 0) return;
    const smoothed = (r * count + 0.5) / (count + 1);
    const next = this.u[k]! + this.rate * (logit(smoothed) - (logit(track) + this.u[k]!));
    this.u[k] = Math.max(-MAX_OFFSET, Math.min(MAX_OFFSET, next));
  }

  /** The implicit pass rate of task k: its track shifted by its offset (the track itself when u = 0). */
  shift(k: number, track: number): number {
    const u = this.u[k]!;
    if (u === 0) return track;
    return 1 / (1 + Math.exp(-(logit(track) + u)));
  }

  save(): JsonValue {
    return encodeArray(this.u);
  }

  load(data: unknown, n: number): void {
    if (data === undefined) throw new DataError({ message: 'bots.load: state.data.taskOffsets is missing' });
    this.u = decodeArray(data as JsonValue, 'float64', 'bots task offsets', n);
  }
}
