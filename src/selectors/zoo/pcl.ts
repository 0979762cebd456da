import { z } from 'zod';
import type { JsonValue } from '../../core/task.ts';
import type { ObservedBatch } from '../base.ts';
import { tieRank } from '../hash-tie.ts';
import { decodeArray, encodeArray } from '../state-codec.ts';
import { TopK } from '../top-k.ts';
import type { SelectorTaskView } from '../types.ts';
import { type TaskEmbeddings, taskEmbeddings } from './task-embedding.ts';
import { distinctUniform, fillTo, ZooSelector } from './zoo-base.ts';

/**
 * PCL — Prompt Curriculum Learning (Gao et al., 2025, "Prompt Curriculum Learning for Efficient LLM
 * Reasoning", arXiv:2510.01135). An online value model V(x) ≈ p(x), the policy's pass rate on
 * prompt x, is trained on every group's mean reward; each step draws a candidate set `candidates`
 * times the batch uniformly and keeps the B prompts whose V(x) is closest to the target (0.5).
 * The paper's value model is a language model; here (inferred) it is a logistic model
 * V(x) = σ(w·φ(x) + b) over the task's embedding or features φ(x) (task-embedding.ts), trained by
 * one SGD step of the logistic loss per observed group:  w ← w − η·(V(x) − r̄)·φ(x),
 * b ← b − η·(V(x) − r̄). With no informative features it learns the global pass rate only.
 */
export const PclParamsSchema = z.strictObject({
  target: z.number().gt(0).lt(1).default(0.5),
  candidates: z.number().int().min(1).default(4).describe('candidate set size as a multiple of the batch'),
  learningRate: z.number().positive().default(0.1).describe('η of the value model'),
  vectors: z
    .string()
    .min(1)
    .optional()
    .describe('embedding column to use (default: the first, else features)'),
});
export type PclParams = z.output<typeof PclParamsSchema>;

export class PclSelector extends ZooSelector {
  readonly type = 'pcl';
  private readonly p: PclParams;
  private emb: TaskEmbeddings = { dim: 1, data: new Float64Array(0), source: 'none' };
  /** Weights, then the bias as the last entry. */
  private w = new Float64Array(0);

  constructor(seed: number, params: PclParams) {
    super(seed);
    this.p = params;
  }

  protected override onInit(view: SelectorTaskView): void {
    this.emb = taskEmbeddings(view, this.p.vectors);
    this.w = new Float64Array(this.emb.dim + 1);
    this.notice(`pcl: value model on ${this.emb.source}`);
  }

  /** The value model's weights (bias last). */
  weights(): Float64Array {
    return this.w.slice();
  }

  private value(k: number): number {
    const d = this.emb.dim;
    let z = this.w[d]!;
    for (let j = 0; j < d; j++) z += this.w[j]! * this.emb.data[k * d + j]!;
    return 1 / (1 + Math.exp(-z));
  }

  predict(taskIds: readonly string[]): Float64Array {
    return Float64Array.from(this.indicesOf(taskIds), (k) => (k < 0 ? Number.NaN : this.value(k)));
  }

  protected pick(n: number): Int32Array {
    const size = this.ids.length;
    const want = Math.min(n, size);
    const pool = distinctUniform(this.rng, size, Math.min(size, want * this.p.candidates), new Set());
    const salt = this.rng.nextUint32();
    const top = new TopK(want);
    for (const k of pool) top.offer(Math.abs(this.value(k) - this.p.target), k, tieRank(k, salt));
    return fillTo(top.sorted(), n);
  }

  protected override observe(batch: ObservedBatch): void {
    const d = this.emb.dim;
    const eta = this.p.learningRate;
    for (let i = 0; i < batch.size; i++) {
      const k = batch.idx[i]!;
      const g = this.value(k) - batch.mean[i]!;
      for (let j = 0; j < d; j++) this.w[j]! -= eta * g * this.emb.data[k * d + j]!;
      this.w[d]! -= eta * g;
    }
  }

  protected override saveData(): { [key: string]: JsonValue } {
    return { w: encodeArray(this.w) };
  }

  protected override loadData(data: { [key: string]: JsonValue }): void {
    this.w = decodeArray(data['w'], 'float64', 'pcl weights', this.emb.dim + 1);
  }
}
