import { z } from 'zod';
import { DataError } from '../../core/errors.ts';
import type { JsonValue } from '../../core/task.ts';
import { isMixed, type PreRolloutStage, type StageState } from './types.ts';

/**
 * DAPO dynamic sampling (Yu et al., 2025, "DAPO: An Open-Source LLM Reinforcement Learning System
 * at Scale", arXiv:2503.14476): over-sample prompts, keep only groups with 0 < correct < G (rewards
 * not all equal), and keep sampling rounds until the batch is full. Every over-sampled and
 * discarded group is rolled out and paid for. Inferred: the over-sampling factor (DAPO's
 * generation batch over its training batch) defaults to 1.5. `maxRounds` (DAPO's
 * `max_num_gen_batches`) bounds the rounds; a step that has not filled its batch by then trains on
 * the groups it kept, and the step record says how many rounds and rollouts it took.
 */
export const DapoDsParamsSchema = z.strictObject({
  oversample: z.number().min(1).max(16).default(1.5).describe('candidates per wanted group in a round'),
  maxRounds: z
    .number()
    .int()
    .min(1)
    .max(1000)
    .default(8)
    .describe('rounds of rollouts a step may take to fill its batch with groups that have reward variance'),
});
export type DapoDsParams = z.output<typeof DapoDsParamsSchema>;

export class DapoDsStage implements PreRolloutStage {
  readonly type = 'dapo_ds';
  readonly refills = true;
  readonly maxRounds: number;
  private readonly p: DapoDsParams;

  constructor(params: DapoDsParams) {
    this.p = params;
    this.maxRounds = params.maxRounds;
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
