import { z } from 'zod';
import { DataError } from '../../core/errors.ts';
import type { JsonValue } from '../../core/task.ts';
import { isMixed, type PreRolloutStage, type StageState } from './types.ts';

/**
 * DAPO dynamic sampling (Yu et al., 2025, "DAPO: An Open-Source LLM Reinforcement Learning System
 * at Scale", arXiv:2503.14476): over-sample prompts, keep only groups with 0 < correct < G (rewards
 * not all equal), and keep sampling rounds until the batch is full. Every over-sampled and
 * discarded group is rolled out and paid for. Inferred: the over-sampling factor (DAPO's
 * generation batch over its training batch) defaults to 1.5; `maxRounds` is the runner's.
 */
export const DapoDsParamsSchema = z.strictObject({
  oversample: z.number().min(1).max(16).default(1.5).describe('candidates per wanted group in a round'),
});
export type DapoDsParams = z.output<typeof DapoDsParamsSchema>;

export class DapoDsStage implements PreRolloutStage {
  readonly type = 'dapo_ds';
  readonly refills = true;
  private readonly p: DapoDsParams;

  constructor(params: DapoDsParams) {
    this.p = params;
  }

  init(): void {}

  candidates(n: number): number {
    return Math.ceil(n * this.p.oversample);
  }

  keep(rewards: readonly number[]): boolean {
    return isMixed(rewards);
  }

  state(): StageState {
    return { type: this.type, data: {} as { [key: string]: JsonValue } };
  }

  load(state: StageState): void {
    if (state.type !== this.type) throw new DataError({ message: `dapo_ds.load: a ${state.type} state` });
  }
}
