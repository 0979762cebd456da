import { DataError } from '../core/errors.ts';
import type { JsonValue } from '../core/task.ts';
import { BaseSelector, type ObservedBatch } from './base.ts';
import { rankWalkCost, tieRank, walkByTieRank } from './hash-tie.ts';
import { decodeArray, decodeNumber, encodeArray, encodeNumber } from './state-codec.ts';
import { TopK } from './top-k.ts';
import type { SelectorTaskView } from './types.ts';

export interface PassRateParams {
  /** Pass rate to aim for. */
  target: number;
  /** Pseudo-rollouts of the global mean reward mixed into each task's estimate. */
  priorStrength: number;
  /** Weight kept by a task's older evidence each time it is observed again (1 = plain average). */
  decay: number;
  /** Step weight of the running global mean reward, the estimate for tasks never tried. */
  globalRate: number;
}

/**
 * Online baseline: each task's smoothed observed pass rate, (s + k·μ) / (n + k) with decayed
 * counts s, n and the running global mean μ; the batch is the tasks closest to the target, ties
 * (e.g. all untried tasks) broken in a seeded random order.
 */
export class PassRateSelector extends BaseSelector {
  readonly type = 'pass_rate';
  private readonly p: PassRateParams;
  private succ = new Float64Array(0);
  private trials = new Float64Array(0);
  private globalMean = Number.NaN;
  /**
   * Tasks ever observed (listed once each, flagged in `triedFlag`). Every other task has s = n = 0
   * and so the same key, and `pick` ranks only these plus the first untried tasks in tie order.
   */
  private tried: number[] = [];
  private triedFlag = new Uint8Array(0);

  constructor(seed: number, params: PassRateParams) {
    super(seed);
    this.p = params;
  }

  protected override onInit(view: SelectorTaskView): void {
    this.succ = new Float64Array(view.ids.length);
    this.trials = new Float64Array(view.ids.length);
    this.tried = [];
    this.triedFlag = new Uint8Array(view.ids.length);
  }

  protected override onAddTasks(view: SelectorTaskView, offset: number): void {
    const s = new Float64Array(offset + view.ids.length);
    s.set(this.succ);
    const t = new Float64Array(offset + view.ids.length);
    t.set(this.trials);
    this.succ = s;
    this.trials = t;
    const f = new Uint8Array(offset + view.ids.length);
    f.set(this.triedFlag);
    this.triedFlag = f;
  }

  private prior(): number {
    return Number.isNaN(this.globalMean) ? this.p.target : this.globalMean;
  }

  predict(taskIds: readonly string[]): Float64Array {
    const idx = this.indicesOf(taskIds);
    const out = new Float64Array(idx.length);
    const mu = this.prior();
    const a0 = this.p.priorStrength;
    for (let i = 0; i < idx.length; i++) {
      const k = idx[i]!;
      out[i] = k < 0 ? Number.NaN : (this.succ[k]! + a0 * mu) / (this.trials[k]! + a0);
    }
    return out;
  }

  protected pick(n: number): Int32Array {
    const size = this.ids.length;
    const salt = this.rng.nextUint32();
    const top = new TopK(Math.min(n, size));
    const mu = this.prior();
    const a0 = this.p.priorStrength;
    const target = this.p.target;
    const s = this.succ;
    const t = this.trials;
    const offer = (k: number) => {
      const key = Math.abs((s[k]! + a0 * mu) / (t[k]! + a0) - target);
      if (key <= top.bound) top.offer(key, k, tieRank(k, salt));
    };
    const untried = size - this.tried.length;
    const wanted = Math.min(n, untried);
    if (n < size && rankWalkCost(wanted, untried) < size) {
      // Same result as ranking every task: untried tasks all share one key, so only the first
      // `wanted` of them in tie order can make the batch; list those by inverting the tie order.
      for (const k of this.tried) offer(k);
      let left = wanted;
      if (left > 0)
        walkByTieRank(
          size,
          salt,
          (k) => this.triedFlag[k] === 1,
          (k) => {
            offer(k);
            return --left > 0;
          },
        );
      return top.sorted();
    }
    for (let k = 0; k < size; k++) offer(k);
    const picked = top.sorted();
    if (picked.length === n) return picked;
    // More than the task set: repeat whole rounds of the same order.
    const out = new Int32Array(n);
    for (let i = 0; i < n; i++) out[i] = picked[i % picked.length]!;
    return out;
  }

  private markTried(k: number): void {
    if (this.triedFlag[k] === 1) return;
    this.triedFlag[k] = 1;
    this.tried.push(k);
  }

  protected override observe(batch: ObservedBatch): void {
    if (batch.size === 0) return;
    let meanSum = 0;
    for (let i = 0; i < batch.size; i++) {
      const k = batch.idx[i]!;
      this.markTried(k);
      this.succ[k] = this.p.decay * this.succ[k]! + batch.sum[i]!;
      this.trials[k] = this.p.decay * this.trials[k]! + batch.count[i]!;
      meanSum += batch.mean[i]!;
    }
    const m = meanSum / batch.size;
    this.globalMean = Number.isNaN(this.globalMean)
      ? m
      : (1 - this.p.globalRate) * this.globalMean + this.p.globalRate * m;
  }

  protected override saveData(): { [key: string]: JsonValue } {
    return {
      succ: encodeArray(this.succ),
      trials: encodeArray(this.trials),
      globalMean: encodeNumber(this.globalMean),
    };
  }

  protected override loadData(data: { [key: string]: JsonValue }): void {
    const n = this.ids.length;
    this.succ = decodeArray(data['succ'], 'float64', 'pass_rate succ', n);
    this.trials = decodeArray(data['trials'], 'float64', 'pass_rate trials', n);
    this.globalMean = decodeNumber(data['globalMean'], 'pass_rate globalMean');
    if (this.succ.length !== n) throw new DataError({ message: 'pass_rate.load: wrong state size' });
    this.tried = [];
    this.triedFlag = new Uint8Array(n);
    for (let k = 0; k < n; k++) if (this.succ[k] !== 0 || this.trials[k] !== 0) this.markTried(k);
  }
}
