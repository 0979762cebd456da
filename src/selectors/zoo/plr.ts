import { z } from 'zod';
import { hashSeed, Rng } from '../../core/rng.ts';
import type { JsonValue } from '../../core/task.ts';
import type { ObservedBatch } from '../base.ts';
import { decodeArray, decodeNumber, encodeArray } from '../state-codec.ts';
import type { SelectorTaskView } from '../types.ts';
import { fillTo, meanAbsAdvantage, ZooSelector } from './zoo-base.ts';

/**
 * PLR — Prioritized Level Replay (Jiang, Grefenstette & Rocktäschel, 2021, ICML, arXiv:2010.03934),
 * with a task as the "level". Each slot of a batch either replays a seen task (probability
 * `replayProb`, once any task has been seen) or takes a new one (uniformly, never seen before).
 * Replay draws from  P = (1 − ρ)·P_S + ρ·P_C:  the score prioritisation P_S ∝ (1 / rank(S_i))^(1/β)
 * over seen tasks ranked by score (highest first), and the staleness term
 * P_C ∝ c − C_i, c the number of tasks handed out so far and C_i that count when task i was last
 * handed out. The score S_i is the mean |advantage| of the task's latest group — PLR's L1 value
 * loss, with the group mean as the value baseline (GRPO has no critic); inferred, as is drawing a
 * batch slot by slot without repeats.
 */
export const PlrParamsSchema = z.strictObject({
  replayProb: z.number().min(0).max(1).default(0.5).describe('p: chance a slot replays a seen task'),
  temperature: z.number().positive().default(0.1).describe('β of the rank prioritisation'),
  staleness: z.number().min(0).max(1).default(0.1).describe('ρ: weight of the staleness term'),
  normalisedAdvantage: z.boolean().default(false).describe('score with GRPO-normalised advantages'),
});
export type PlrParams = z.output<typeof PlrParamsSchema>;

export class PlrSelector extends ZooSelector {
  readonly type = 'plr';
  private readonly p: PlrParams;
  /** Latest score per task; NaN = never seen. */
  private score = new Float64Array(0);
  /** The handed-out count c when the task was last handed out. */
  private lastHanded = new Float64Array(0);
  private handed = 0;
  /** A fixed random order of all tasks; new tasks are taken along it (derived from the seed). */
  private order: Int32Array = new Int32Array(0);
  private cursor = 0;
  private seen: number[] = [];

  constructor(seed: number, params: PlrParams) {
    super(seed);
    this.p = params;
  }

  protected override onInit(view: SelectorTaskView): void {
    const n = view.ids.length;
    this.score = new Float64Array(n).fill(Number.NaN);
    this.lastHanded = new Float64Array(n);
    this.order = new Rng(hashSeed('plr-order', this.seed)).permutation(n);
  }

  /** The replay distribution over seen tasks, in `seenTasks()` order. */
  replayDistribution(): Float64Array {
    const s = this.seen;
    const m = s.length;
    const out = new Float64Array(m);
    if (m === 0) return out;
    const byScore = s
      .map((_k, i) => i)
      .sort((a, b) => this.score[s[b]!]! - this.score[s[a]!]! || s[a]! - s[b]!);
    const h = new Float64Array(m);
    let hs = 0;
    byScore.forEach((i, r) => {
      h[i] = (1 / (r + 1)) ** (1 / this.p.temperature);
      hs += h[i]!;
    });
    let cs = 0;
    for (let i = 0; i < m; i++) cs += this.handed - this.lastHanded[s[i]!]!;
    const rho = this.p.staleness;
    for (let i = 0; i < m; i++) {
      const pc = cs > 0 ? (this.handed - this.lastHanded[s[i]!]!) / cs : 1 / m;
      out[i] = (1 - rho) * (h[i]! / hs) + rho * pc;
    }
    return out;
  }

  /** Ids of the seen tasks, in the order `replayDistribution` uses. */
  seenTasks(): string[] {
    return this.seen.map((k) => this.ids[k]!);
  }

  protected pick(n: number): Int32Array {
    const size = this.ids.length;
    const want = Math.min(n, size);
    const taken = new Set<number>();
    const out: number[] = [];
    const dist = this.replayDistribution();
    const seen = this.seen;
    while (out.length < want) {
      const unseenLeft = this.cursor < size;
      const replay = seen.length > 0 && (!unseenLeft || this.rng.float() < this.p.replayProb);
      let k = -1;
      if (replay) {
        let total = 0;
        for (let i = 0; i < seen.length; i++) if (!taken.has(seen[i]!)) total += dist[i]!;
        if (total > 0) {
          let u = this.rng.float() * total;
          for (let i = 0; i < seen.length && k < 0; i++) {
            if (taken.has(seen[i]!)) continue;
            u -= dist[i]!;
            if (u < 0) k = seen[i]!;
          }
          if (k < 0)
            for (let i = seen.length - 1; i >= 0 && k < 0; i--) if (!taken.has(seen[i]!)) k = seen[i]!;
        }
      }
      if (k < 0) {
        while (this.cursor < size && !Number.isNaN(this.score[this.order[this.cursor]!]!)) this.cursor++;
        if (this.cursor < size) k = this.order[this.cursor++]!;
        else for (let i = 0; i < seen.length && k < 0; i++) if (!taken.has(seen[i]!)) k = seen[i]!;
      }
      if (k < 0) break;
      taken.add(k);
      out.push(k);
      this.handed++;
      this.lastHanded[k] = this.handed;
    }
    return fillTo(out, n);
  }

  protected override observe(batch: ObservedBatch): void {
    for (let i = 0; i < batch.size; i++) {
      const k = batch.idx[i]!;
      if (Number.isNaN(this.score[k]!)) this.seen.push(k);
      this.score[k] = meanAbsAdvantage(this.groupRewards.get(k) ?? [], this.p.normalisedAdvantage);
    }
  }

  protected override saveData(): { [key: string]: JsonValue } {
    return {
      score: encodeArray(this.score),
      lastHanded: encodeArray(this.lastHanded),
      handed: this.handed,
      cursor: this.cursor,
      seen: encodeArray(Int32Array.from(this.seen)),
    };
  }

  protected override loadData(data: { [key: string]: JsonValue }): void {
    const n = this.ids.length;
    this.score = decodeArray(data['score'], 'float64', 'plr score', n);
    this.lastHanded = decodeArray(data['lastHanded'], 'float64', 'plr lastHanded', n);
    this.handed = decodeNumber(data['handed'], 'plr handed');
    this.cursor = decodeNumber(data['cursor'], 'plr cursor');
    this.seen = Array.from(decodeArray(data['seen'], 'int32', 'plr seen'));
  }
}
