import type { Rng } from '../../core/rng.ts';
import type { SumTree } from '../../core/sum-tree.ts';
import type { PriorityHeap } from './priority-heap.ts';
import type { CandidateView, Selection, SelectOptions } from './sampler.ts';

/**
 * Selection routines shared by the built-in samplers (a sampler names its mode and hands over its
 * own index). A sampler of another kind need not use them.
 *
 * - `oldest` / `newest`: insertion order (FIFO / LIFO), deterministic;
 * - `highest`: highest `priority` first, deterministic; ties by the view's `entryOrder` (first in,
 *   first out) when it has one, else newest first;
 * - `weighted`: random without replacement, P(i) ∝ weight(priority_i), with importance weights.
 */
export type SelectionMode = 'oldest' | 'newest' | 'highest' | 'weighted';

export interface SelectionPolicy {
  readonly mode: SelectionMode;
  /** Importance-sampling exponent β (weighted mode); 0 makes every weight 1. */
  readonly beta: number;
  /** Sampling weight from a priority (weighted mode only). */
  weight(priority: number): number;
}

/** The candidate rows plus the sampler's own index, when it keeps one. */
export interface IndexedView
  extends Pick<CandidateView, 'start' | 'end' | 'seq' | 'priority' | 'group' | 'eligible'> {
  /** Every deliverable slot keyed by (priority, seq): 'highest' picks without a scan. */
  heap?: PriorityHeap;
  /** Every deliverable slot's sampling weight: 'weighted' draws without a scan. */
  tree?: SumTree;
  /** Tie order between equal priorities ('highest'): negative when slot `a` goes first. */
  entryOrder?: (a: number, b: number) => number;
}

/** Choose up to `n` slots. With `keepGroups`, whole GRPO groups (their eligible members) are chosen. */
export function selectSlots(
  d: SelectionPolicy,
  view: IndexedView,
  n: number,
  opts: SelectOptions,
): Selection {
  if (n <= 0) return { slots: [], weights: [] };
  return opts.keepGroups ? selectGroups(d, view, n, opts.rng) : selectRows(d, view, n, opts.rng);
}

function selectRows(d: SelectionPolicy, v: IndexedView, n: number, rng: Rng): Selection {
  const ones = (slots: number[]): Selection => ({ slots, weights: slots.map(() => 1) });
  if (d.mode === 'oldest') {
    const slots: number[] = [];
    for (let s = v.start; s < v.end && slots.length < n; s++) if (v.eligible(s)) slots.push(s);
    return ones(slots);
  }
  if (d.mode === 'newest') {
    const slots: number[] = [];
    for (let s = v.end - 1; s >= v.start && slots.length < n; s--) if (v.eligible(s)) slots.push(s);
    return ones(slots);
  }
  if (d.mode === 'highest') {
    if (!v.heap) {
      const top = new TopN(n, v.priority, v.entryOrder ?? ((a, b) => v.seq[b]! - v.seq[a]!));
      for (let s = v.end - 1; s >= v.start; s--) if (v.eligible(s)) top.offer(s);
      return ones(top.sortedDesc());
    }
    // Pop in rank order until n eligible rows are found, then put everything back.
    const popped: number[] = [];
    const slots: number[] = [];
    while (slots.length < n && v.heap.size > 0) {
      const s = v.heap.pop();
      popped.push(s);
      if (v.eligible(s)) slots.push(s);
    }
    for (const s of popped) v.heap.upsert(s);
    return ones(slots);
  }
  const tree = v.tree;
  const slots: number[] = [];
  const raw: number[] = [];
  const chosen = new Set<number>();
  if (tree) {
    // Draw by weight among deliverable rows and reject the ineligible (cooldown, pending, stale)
    // and the already chosen: exactly sampling without replacement among the eligible.
    let budget = 64 + 16 * n;
    while (slots.length < n && budget-- > 0 && tree.total > 0) {
      const s = tree.find(rng.float() * tree.total);
      if (s < 0) break;
      if (chosen.has(s) || !v.eligible(s)) continue;
      chosen.add(s);
      slots.push(s);
      raw.push(tree.get(s));
    }
    if (slots.length === n || budget >= 0) return { slots, weights: importanceWeights(raw, d.beta) };
  }
  // No tree, or too many rejections: draw the rest from an explicit list of the eligible.
  const units: number[] = [];
  for (let s = v.start; s < v.end; s++) if (!chosen.has(s) && v.eligible(s)) units.push(s);
  const w = new Float64Array(units.length);
  for (let i = 0; i < units.length; i++) w[i] = d.weight(v.priority[units[i]!]!);
  const draw = drawWithoutReplacement(w, Math.min(n - slots.length, units.length), rng);
  for (const i of draw.picks) {
    slots.push(units[i]!);
    raw.push(w[i]!);
  }
  return { slots, weights: importanceWeights(raw, d.beta) };
}

interface GroupUnit {
  members: number[];
  minSeq: number;
  maxSeq: number;
  sumPriority: number;
  /** The member that entered the queue first (by the view's entryOrder). */
  firstIn: number;
}

function selectGroups(d: SelectionPolicy, v: IndexedView, n: number, rng: Rng): Selection {
  const byGroup = new Map<number, GroupUnit>();
  const units: GroupUnit[] = [];
  for (let s = v.start; s < v.end; s++) {
    if (!v.eligible(s)) continue;
    const g = v.group[s]!;
    let u = byGroup.get(g);
    if (!u) {
      u = { members: [], minSeq: v.seq[s]!, maxSeq: v.seq[s]!, sumPriority: 0, firstIn: s };
      byGroup.set(g, u);
      units.push(u);
    } else if (v.entryOrder && v.entryOrder(s, u.firstIn) < 0) u.firstIn = s;
    u.members.push(s);
    u.maxSeq = v.seq[s]!;
    u.sumPriority += v.priority[s]!;
  }
  const slots: number[] = [];
  const weights: number[] = [];
  let left = n;
  const take = (u: GroupUnit, weight: number) => {
    for (const m of u.members) {
      slots.push(m);
      weights.push(weight);
    }
    left -= u.members.length;
  };
  if (d.mode !== 'weighted') {
    // Units were created in ascending seq order of their first member.
    if (d.mode === 'newest') units.sort((a, b) => b.maxSeq - a.maxSeq);
    else if (d.mode === 'highest') {
      const tie = v.entryOrder
        ? (a: GroupUnit, b: GroupUnit) => v.entryOrder!(a.firstIn, b.firstIn)
        : (a: GroupUnit, b: GroupUnit) => b.maxSeq - a.maxSeq;
      units.sort((a, b) => b.sumPriority / b.members.length - a.sumPriority / a.members.length || tie(a, b));
    }
    // A group that does not fit in what is left waits for the next call; smaller ones may fill in.
    for (const u of units) {
      if (left === 0) break;
      if (u.members.length <= left) take(u, 1);
    }
    return { slots, weights };
  }
  const w = new Float64Array(units.length);
  for (let i = 0; i < units.length; i++) w[i] = d.weight(units[i]!.sumPriority / units[i]!.members.length);
  const draw = drawWithoutReplacement(w, units.length, rng, (i) => {
    const u = units[i]!;
    if (u.members.length > left) return 'skip';
    left -= u.members.length;
    return left === 0 ? 'stop' : 'take';
  });
  left = n;
  const iw = importanceWeights(
    draw.picks.map((i) => w[i]!),
    d.beta,
  );
  draw.picks.forEach((i, k) => {
    take(units[i]!, iw[k]!);
  });
  return { slots, weights };
}

/**
 * Sequential sampling without replacement, P(next = i) ∝ w_i among the not-yet-drawn. Implemented
 * as draws from one prefix-sum table with rejection of already-drawn items (which is exactly the
 * renormalised distribution), rebuilding the table when rejections pile up. `accept` may skip a
 * drawn item (it is removed without being picked) or stop early. Returns each pick's first-draw
 * probability w_i / Σw (what importance weights are computed from).
 */
export function drawWithoutReplacement(
  weights: Float64Array,
  k: number,
  rng: Rng,
  accept?: (i: number) => 'take' | 'skip' | 'stop',
): { picks: number[]; probs: number[] } {
  const m = weights.length;
  const w = new Float64Array(m);
  let total0 = 0;
  for (let i = 0; i < m; i++) {
    const x = weights[i]!;
    w[i] = Number.isFinite(x) && x > 0 ? x : 0;
    total0 += w[i]!;
  }
  if (!(total0 > 0)) {
    w.fill(1);
    total0 = m;
  }
  const removed = new Uint8Array(m);
  const prefix = new Float64Array(m);
  let total = 0;
  const rebuild = () => {
    total = 0;
    for (let i = 0; i < m; i++) {
      if (!removed[i]) total += w[i]!;
      prefix[i] = total;
    }
  };
  rebuild();
  const picks: number[] = [];
  const probs: number[] = [];
  let remaining = 0;
  for (let i = 0; i < m; i++) if (w[i]! > 0) remaining++;
  let misses = 0;
  while (picks.length < k && remaining > 0) {
    if (misses >= 8) {
      rebuild();
      misses = 0;
    }
    const u = rng.float() * total;
    let lo = 0;
    let hi = m - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (prefix[mid]! > u) hi = mid;
      else lo = mid + 1;
    }
    if (removed[lo] || w[lo] === 0) {
      misses++;
      continue;
    }
    removed[lo] = 1;
    remaining--;
    const verdict = accept ? accept(lo) : 'take';
    if (verdict === 'skip') continue;
    picks.push(lo);
    probs.push(w[lo]! / total0);
    if (verdict === 'stop') break;
  }
  return { picks, probs };
}

/**
 * w_i = (N·P_i)^−β divided by the largest w in the batch, so weights lie in (0, 1]. With
 * P_i = s_i / Σs (s = sampling weight), N and Σs cancel in the division: w_i = (s_i / s_min)^−β,
 * s_min the smallest sampling weight in the batch. That is what is computed here, from the
 * sampling weights alone.
 */
export function importanceWeights(samplingWeights: readonly number[], beta: number): number[] {
  if (beta === 0 || samplingWeights.length === 0) return samplingWeights.map(() => 1);
  const min = Math.min(...samplingWeights);
  return samplingWeights.map((s) => (s / min) ** -beta);
}

/** The n best slots by priority desc (ties: `tie`, negative when a goes first), kept in a bounded min-heap. */
class TopN {
  private readonly heap: number[] = [];
  private readonly cap: number;
  private readonly pri: Float64Array;
  private readonly tie: (a: number, b: number) => number;
  constructor(cap: number, pri: Float64Array, tie: (a: number, b: number) => number) {
    this.cap = cap;
    this.pri = pri;
    this.tie = tie;
  }
  /** true when a ranks below b. */
  private below(a: number, b: number): boolean {
    const pa = this.pri[a]!;
    const pb = this.pri[b]!;
    return pa < pb || (pa === pb && this.tie(a, b) > 0);
  }
  offer(s: number): void {
    const h = this.heap;
    if (h.length < this.cap) {
      h.push(s);
      let i = h.length - 1;
      while (i > 0) {
        const p = (i - 1) >> 1;
        if (!this.below(h[i]!, h[p]!)) break;
        [h[i], h[p]] = [h[p]!, h[i]!];
        i = p;
      }
      return;
    }
    if (!this.below(h[0]!, s)) return;
    h[0] = s;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < h.length && this.below(h[l]!, h[m]!)) m = l;
      if (r < h.length && this.below(h[r]!, h[m]!)) m = r;
      if (m === i) break;
      [h[i], h[m]] = [h[m]!, h[i]!];
      i = m;
    }
  }
  sortedDesc(): number[] {
    return [...this.heap].sort((a, b) => (this.below(a, b) ? 1 : this.below(b, a) ? -1 : 0));
  }
}
