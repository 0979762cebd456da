import { z } from 'zod';
import type { JsonValue } from '../../core/task.ts';
import type { ObservedBatch } from '../base.ts';
import { tieRank } from '../hash-tie.ts';
import { decodeArray, decodeNumber, encodeArray } from '../state-codec.ts';
import { TopK } from '../top-k.ts';
import type { SelectorTaskView } from '../types.ts';
import { distinctUniform, fillTo, groupVariance, ZooSelector } from './zoo-base.ts';

/**
 * VCRL — variance-based curriculum RL (Jiang et al., 2025, "VCRL: Variance-based Curriculum
 * Reinforcement Learning for Large Language Models", arXiv:2509.19803). A group's reward variance,
 * normalised by its largest possible value (0.25 for rewards in [0, 1]), says how close a prompt
 * is to the model's frontier. Groups whose score is below κ are dropped from training; prompts
 * scoring ≥ κ enter a memory bank with a momentum priority  P ← μ·P + (1 − μ)·score, and the bank
 * refills the slots the dropped groups leave: each batch takes as many of the bank's top-priority
 * prompts as groups fell below κ in the previous step, the rest fresh uniform draws. κ is
 * `kappaEarly` for the first `warmupSteps` steps, then `kappaLate`.
 * Inferred: a prompt leaves the bank when a new group scores below κ; a replayed prompt waits
 * `cooldown` steps before it can be replayed again; the bank is capped at `bankSize` (lowest
 * priority evicted).
 */
export const VcrlParamsSchema = z.strictObject({
  kappaEarly: z.number().min(0).max(1).default(0.3),
  kappaLate: z.number().min(0).max(1).default(0.8),
  warmupSteps: z.number().int().nonnegative().default(20),
  momentum: z.number().min(0).max(1).default(0.9).describe('μ of the bank priority'),
  bankSize: z.number().int().min(1).default(1024),
  cooldown: z.number().int().nonnegative().default(1),
});
export type VcrlParams = z.output<typeof VcrlParamsSchema>;

export class VcrlSelector extends ZooSelector {
  readonly type = 'vcrl';
  private readonly p: VcrlParams;
  /** Bank priority per task; NaN = not in the bank. */
  private priority = new Float64Array(0);
  /** Step a task was last replayed from the bank (−1: never). */
  private replayedAt = new Int32Array(0);
  private bankCount = 0;
  private steps = 0;
  private lastLow = 0;

  constructor(seed: number, params: VcrlParams) {
    super(seed);
    this.p = params;
  }

  protected override onInit(view: SelectorTaskView): void {
    this.priority = new Float64Array(view.ids.length).fill(Number.NaN);
    this.replayedAt = new Int32Array(view.ids.length).fill(-1);
  }

  /** κ in force at the current step. */
  get kappa(): number {
    return this.steps < this.p.warmupSteps ? this.p.kappaEarly : this.p.kappaLate;
  }

  /** Bank priority of a task (NaN when not in the bank). */
  bankPriority(taskId: string): number {
    return this.priority[this.index.get(taskId) ?? -1] ?? Number.NaN;
  }

  protected pick(n: number): Int32Array {
    const size = this.ids.length;
    const want = Math.min(n, size);
    const taken = new Set<number>();
    const out: number[] = [];
    const fromBank = Math.min(this.lastLow, want, this.bankCount);
    if (fromBank > 0) {
      const top = new TopK(fromBank);
      const salt = this.rng.nextUint32();
      for (let k = 0; k < size; k++) {
        const pr = this.priority[k]!;
        if (Number.isNaN(pr)) continue;
        if (this.replayedAt[k]! >= 0 && this.steps - this.replayedAt[k]! < this.p.cooldown) continue;
        top.offer(-pr, k, tieRank(k, salt));
      }
      for (const k of top.sorted()) {
        taken.add(k);
        out.push(k);
        this.replayedAt[k] = this.steps;
      }
    }
    for (const k of distinctUniform(this.rng, size, want - out.length, taken)) out.push(k);
    return fillTo(out, n);
  }

  protected override observe(batch: ObservedBatch): void {
    const kappa = this.kappa;
    let low = 0;
    for (let i = 0; i < batch.size; i++) {
      const k = batch.idx[i]!;
      const rewards = this.groupRewards.get(k) ?? [];
      const score = rewards.length > 1 ? groupVariance(rewards) / 0.25 : 0;
      const inBank = !Number.isNaN(this.priority[k]!);
      if (score < kappa) {
        low++;
        if (inBank) {
          this.priority[k] = Number.NaN;
          this.bankCount--;
        }
        continue;
      }
      if (inBank) this.priority[k] = this.p.momentum * this.priority[k]! + (1 - this.p.momentum) * score;
      else {
        this.priority[k] = score;
        this.bankCount++;
      }
    }
    this.evictOverflow();
    this.lastLow = low;
    this.steps++;
  }

  private evictOverflow(): void {
    while (this.bankCount > this.p.bankSize) {
      let worst = -1;
      for (let k = 0; k < this.priority.length; k++) {
        const pr = this.priority[k]!;
        if (!Number.isNaN(pr) && (worst < 0 || pr < this.priority[worst]!)) worst = k;
      }
      this.priority[worst] = Number.NaN;
      this.bankCount--;
    }
  }

  protected override saveData(): { [key: string]: JsonValue } {
    return {
      priority: encodeArray(this.priority),
      replayedAt: encodeArray(this.replayedAt),
      bankCount: this.bankCount,
      steps: this.steps,
      lastLow: this.lastLow,
    };
  }

  protected override loadData(data: { [key: string]: JsonValue }): void {
    const n = this.ids.length;
    this.priority = decodeArray(data['priority'], 'float64', 'vcrl priority', n);
    this.replayedAt = decodeArray(data['replayedAt'], 'int32', 'vcrl replayedAt', n);
    this.bankCount = decodeNumber(data['bankCount'], 'vcrl bankCount');
    this.steps = decodeNumber(data['steps'], 'vcrl steps');
    this.lastLow = decodeNumber(data['lastLow'], 'vcrl lastLow');
  }
}
