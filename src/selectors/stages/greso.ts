import { z } from 'zod';
import { DataError } from '../../core/errors.ts';
import { hashSeed, Rng, type RngState } from '../../core/rng.ts';
import type { JsonValue } from '../../core/task.ts';
import { decodeArray, decodeNumber, encodeArray } from '../state-codec.ts';
import type { SelectorTaskView } from '../types.ts';
import { isMixed, type PreRolloutStage, type StageGroup, type StageState } from './types.ts';

/**
 * GRESO — selective rollout (Zheng et al., 2025, "Act Only When It Pays: Efficient Reinforcement
 * Learning for LLM Reasoning via Selective Rollouts", arXiv:2506.02177). A prompt whose last z
 * groups all had zero reward variance is skipped before rollout with probability 1 − p^z, where
 * the exploration probability p is kept separately for easy (all correct) and hard (all wrong)
 * prompts and adapted after every round toward a target share of zero-variance groups:
 * p_easy ← p_easy − Δ when the share of all-correct groups exceeds `targetEasy`, + Δ otherwise
 * (the same for hard), clipped into [pMin, 1]. Skipped prompts cost no rollout; the stage asks the
 * selector for extra candidates in proportion to the last round's skips (the paper's adaptive batch
 * size). Inferred: a "zero-variance epoch" is each time the prompt is rolled out; the targets split
 * a 25% zero-variance share 1 : 2 between easy and hard; p starts at 0.5 with Δ = 0.01.
 */
export const GresoParamsSchema = z.strictObject({
  targetEasy: z
    .number()
    .min(0)
    .max(1)
    .default(0.25 / 3),
  targetHard: z
    .number()
    .min(0)
    .max(1)
    .default(0.5 / 3),
  initialProb: z.number().min(0).max(1).default(0.5),
  delta: z.number().min(0).max(1).default(0.01),
  pMin: z.number().min(0).max(1).default(0.05),
});
export type GresoParams = z.output<typeof GresoParamsSchema>;

const EASY = 1;
const HARD = 2;

export class GresoStage implements PreRolloutStage {
  readonly type = 'greso';
  readonly refills = false;
  private readonly p: GresoParams;
  private rng: Rng;
  private index = new Map<string, number>();
  /** Consecutive zero-variance groups per task, and whether the last one was all correct (1) or all wrong (2). */
  private streak = new Int32Array(0);
  private kind = new Uint8Array(0);
  private pEasy: number;
  private pHard: number;
  /** Candidates looked at and admitted in the last round (for the over-ask). */
  private considered = 0;
  private admitted = 0;
  private skippedTotal = 0;

  constructor(params: GresoParams, seed: number) {
    this.p = params;
    this.rng = new Rng(hashSeed('greso', seed));
    this.pEasy = params.initialProb;
    this.pHard = params.initialProb;
  }

  init(view: SelectorTaskView): void {
    this.index = new Map(view.ids.map((id, k) => [id, k] as const));
    this.streak = new Int32Array(view.ids.length);
    this.kind = new Uint8Array(view.ids.length);
  }

  /** Current exploration probabilities. */
  probabilities(): { easy: number; hard: number } {
    return { easy: this.pEasy, hard: this.pHard };
  }

  /** Probability that a task is skipped now: 1 − p^z. */
  skipProbability(taskId: string): number {
    const k = this.index.get(taskId);
    if (k === undefined) return 0;
    const z = this.streak[k]!;
    if (z === 0) return 0;
    return 1 - (this.kind[k] === EASY ? this.pEasy : this.pHard) ** z;
  }

  get skipped(): number {
    return this.skippedTotal;
  }

  candidates(n: number): number {
    if (this.admitted === 0) return n;
    return Math.ceil(n * Math.min(4, this.considered / this.admitted));
  }

  admit(ids: readonly string[], n: number): string[] {
    const out: string[] = [];
    let considered = 0;
    for (const id of ids) {
      if (out.length >= n) break;
      considered++;
      const skip = this.skipProbability(id);
      if (skip > 0 && this.rng.float() < skip) {
        this.skippedTotal++;
        continue;
      }
      out.push(id);
    }
    this.considered = considered;
    this.admitted = out.length;
    return out;
  }

  observe(groups: readonly StageGroup[]): void {
    let easy = 0;
    let hard = 0;
    let total = 0;
    for (const g of groups) {
      const k = this.index.get(g.taskId);
      const finite = g.rewards.filter((r) => Number.isFinite(r));
      if (k === undefined || finite.length === 0) continue;
      total++;
      if (isMixed(finite)) {
        this.streak[k] = 0;
        this.kind[k] = 0;
        continue;
      }
      // Zero variance: all at the top of the reward range is "easy", anything else "hard".
      const isEasy = finite[0]! >= 1;
      if (isEasy) easy++;
      else hard++;
      this.streak[k]!++;
      this.kind[k] = isEasy ? EASY : HARD;
    }
    if (total === 0) return;
    const { delta, pMin, targetEasy, targetHard } = this.p;
    const clamp = (x: number) => Math.min(1, Math.max(pMin, x));
    this.pEasy = clamp(this.pEasy + (easy / total > targetEasy ? -delta : delta));
    this.pHard = clamp(this.pHard + (hard / total > targetHard ? -delta : delta));
  }

  state(): StageState {
    return {
      type: this.type,
      data: {
        rng: this.rng.state().map((v) => v >>> 0),
        streak: encodeArray(this.streak),
        kind: encodeArray(this.kind),
        pEasy: this.pEasy,
        pHard: this.pHard,
        considered: this.considered,
        admitted: this.admitted,
        skipped: this.skippedTotal,
      } as { [key: string]: JsonValue },
    };
  }

  load(state: StageState): void {
    if (state.type !== this.type) throw new DataError({ message: `greso.load: a ${state.type} state` });
    const d = state.data;
    const n = this.streak.length;
    this.streak = decodeArray(d['streak'], 'int32', 'greso streak', n);
    this.kind = decodeArray(d['kind'], 'uint8', 'greso kind', n);
    this.pEasy = decodeNumber(d['pEasy'], 'greso pEasy');
    this.pHard = decodeNumber(d['pHard'], 'greso pHard');
    this.considered = decodeNumber(d['considered'], 'greso considered');
    this.admitted = decodeNumber(d['admitted'], 'greso admitted');
    this.skippedTotal = decodeNumber(d['skipped'], 'greso skipped');
    const rng = d['rng'];
    if (!Array.isArray(rng) || rng.length !== 4)
      throw new DataError({ message: 'greso.load: rng must be four numbers' });
    this.rng.load(rng as unknown as RngState);
  }
}
