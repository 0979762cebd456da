import { z } from 'zod';
import { SumTree } from '../../core/sum-tree.ts';
import type { JsonValue } from '../../core/task.ts';
import { drawDistinctWeighted } from '../../core/weighted-draws.ts';
import type { ObservedBatch } from '../base.ts';
import { decodeArray, decodeNumber, encodeArray } from '../state-codec.ts';
import type { SelectorTaskView } from '../types.ts';
import type { ProbingSelector } from './probe.ts';
import { type TaskEmbeddings, taskEmbeddings } from './task-embedding.ts';
import { fillTo, ZooSelector } from './zoo-base.ts';

/**
 * DOTS — difficulty-targeted online data selection (Sun et al., 2025, "Improving Data Efficiency
 * for LLM Reinforcement Fine-tuning Through Difficulty-targeted Online Data Selection and Rollout
 * Replay", arXiv:2506.05316). A small reference set (drawn once, seeded) is rolled out every μ
 * steps (through `probe()`; those rollouts are paid for but not trained on). Its adaptive
 * difficulty d_j = 1 − (mean reward) is spread to every other task by attention over embedding
 * similarity:  a_ij = softmax_j(cos(e_i, e_j) / T_att),  d̂_i = Σ_j a_ij·d_j.  A batch is B tasks
 * drawn without replacement with probability ∝ exp(−|d̂_i − 0.5| / τ). The weights sit in a sum
 * tree rebuilt only when d̂ changes (after a probe), so a step draws B tasks in O(B log N) instead
 * of one Gumbel key per task (47 ms a step at 10⁶ tasks): the same distribution as Gumbel-top-k.
 * Inferred: embeddings fall back to standardised task features; a reference task's own difficulty
 * is its measured one; before the first probe every prediction is 0.5 (uniform sampling). The
 * paper's rollout replay is a buffer policy, not a selector, and is not part of this selector.
 */
export const DotsParamsSchema = z.strictObject({
  referenceSize: z.number().int().min(1).default(64).describe('tasks in the reference set'),
  every: z.number().int().min(1).default(10).describe('μ: steps between reference-set rollouts'),
  attentionTemperature: z.number().positive().default(0.1).describe('T_att of the similarity softmax'),
  temperature: z.number().positive().default(0.1).describe('τ of the sampling distribution'),
  vectors: z
    .string()
    .min(1)
    .optional()
    .describe('embedding column to use (default: the first, else features)'),
});
export type DotsParams = z.output<typeof DotsParamsSchema>;

export class DotsSelector extends ZooSelector implements ProbingSelector {
  readonly type = 'dots';
  private readonly p: DotsParams;
  private emb: TaskEmbeddings = { dim: 1, data: new Float64Array(0), source: 'none' };
  private norms = new Float64Array(0);
  private reference = new Int32Array(0);
  /** Position in the reference set per task (−1: not a reference task). */
  private refSlot = new Int32Array(0);
  /** Measured adaptive difficulty per reference task (NaN until rolled out). */
  private refDifficulty = new Float64Array(0);
  private predicted = new Float64Array(0);
  /** Each task's sampling weight exp(−(|d̂ − 0.5| − min) / τ), as of the last refresh. */
  private readonly weights = new SumTree();
  private dirty = true;
  private selects = 0;
  private probedAt = -1;

  constructor(seed: number, params: DotsParams) {
    super(seed);
    this.p = params;
  }

  protected override onInit(view: SelectorTaskView): void {
    const n = view.ids.length;
    this.emb = taskEmbeddings(view, this.p.vectors);
    const d = this.emb.dim;
    this.norms = new Float64Array(n);
    for (let k = 0; k < n; k++) {
      let s = 0;
      for (let j = 0; j < d; j++) s += this.emb.data[k * d + j]! ** 2;
      this.norms[k] = Math.sqrt(s);
    }
    this.reference = Int32Array.from(this.rng.sampleDistinct(n, Math.min(n, this.p.referenceSize)));
    this.refSlot = new Int32Array(n).fill(-1);
    this.reference.forEach((k, j) => {
      this.refSlot[k] = j;
    });
    this.refDifficulty = new Float64Array(this.reference.length).fill(Number.NaN);
    this.predicted = new Float64Array(n).fill(0.5);
    this.notice(`dots: similarity on ${this.emb.source}`);
  }

  probe(): string[] {
    this.requireInit('probe');
    if (this.selects % this.p.every !== 0 || this.probedAt === this.selects) return [];
    this.probedAt = this.selects;
    return Array.from(this.reference, (k) => this.ids[k]!);
  }

  /** Ids of the reference set. */
  referenceTasks(): string[] {
    return Array.from(this.reference, (k) => this.ids[k]!);
  }

  /** Predicted adaptive difficulty d̂ (1 − pass rate) of each task. */
  difficulty(taskIds: readonly string[]): Float64Array {
    this.refresh();
    return Float64Array.from(this.indicesOf(taskIds), (k) => (k < 0 ? Number.NaN : this.predicted[k]!));
  }

  predict(taskIds: readonly string[]): Float64Array {
    return this.difficulty(taskIds).map((d) => 1 - d);
  }

  private cosine(a: number, b: number): number {
    const d = this.emb.dim;
    const na = this.norms[a]!;
    const nb = this.norms[b]!;
    if (na === 0 || nb === 0) return 0;
    let s = 0;
    for (let j = 0; j < d; j++) s += this.emb.data[a * d + j]! * this.emb.data[b * d + j]!;
    return s / (na * nb);
  }

  private refresh(): void {
    if (!this.dirty) return;
    this.dirty = false;
    const refs: number[] = [];
    this.reference.forEach((_k, j) => {
      if (!Number.isNaN(this.refDifficulty[j]!)) refs.push(j);
    });
    const n = this.ids.length;
    if (refs.length === 0) {
      this.predicted.fill(0.5);
      this.weights.reset(n, () => 1);
      return;
    }
    const T = this.p.attentionTemperature;
    const logits = new Float64Array(refs.length);
    for (let k = 0; k < n; k++) {
      const slot = this.refSlot[k]!;
      if (slot >= 0 && !Number.isNaN(this.refDifficulty[slot]!)) {
        this.predicted[k] = this.refDifficulty[slot]!;
        continue;
      }
      let max = Number.NEGATIVE_INFINITY;
      for (let r = 0; r < refs.length; r++) {
        logits[r] = this.cosine(k, this.reference[refs[r]!]!) / T;
        if (logits[r]! > max) max = logits[r]!;
      }
      let z = 0;
      let s = 0;
      for (let r = 0; r < refs.length; r++) {
        const w = Math.exp(logits[r]! - max);
        z += w;
        s += w * this.refDifficulty[refs[r]!]!;
      }
      this.predicted[k] = s / z;
    }
    this.reweigh();
  }

  /** Sampling weights from d̂, relative to the best task's (so the largest is 1, not an underflow). */
  private reweigh(): void {
    const n = this.ids.length;
    const tau = this.p.temperature;
    let best = Number.POSITIVE_INFINITY;
    for (let k = 0; k < n; k++) best = Math.min(best, Math.abs(this.predicted[k]! - 0.5));
    this.weights.reset(n, (k) => Math.exp(-(Math.abs(this.predicted[k]! - 0.5) - best) / tau));
  }

  protected pick(n: number): Int32Array {
    this.refresh();
    this.selects++;
    return fillTo(drawDistinctWeighted(this.rng, this.weights, this.ids.length, n), n);
  }

  protected override observe(batch: ObservedBatch): void {
    for (let i = 0; i < batch.size; i++) {
      const slot = this.refSlot[batch.idx[i]!]!;
      if (slot < 0) continue;
      this.refDifficulty[slot] = 1 - batch.mean[i]!;
      this.dirty = true;
    }
  }

  protected override saveData(): { [key: string]: JsonValue } {
    return {
      reference: encodeArray(this.reference),
      refDifficulty: encodeArray(this.refDifficulty),
      selects: this.selects,
      probedAt: this.probedAt,
    };
  }

  protected override loadData(data: { [key: string]: JsonValue }): void {
    const ref = decodeArray(data['reference'], 'int32', 'dots reference');
    this.reference = ref;
    this.refSlot.fill(-1);
    ref.forEach((k, j) => {
      this.refSlot[k] = j;
    });
    this.refDifficulty = decodeArray(data['refDifficulty'], 'float64', 'dots refDifficulty', ref.length);
    this.selects = decodeNumber(data['selects'], 'dots selects');
    this.probedAt = decodeNumber(data['probedAt'], 'dots probedAt');
    this.dirty = true;
  }
}
