import { z } from 'zod';
import { DataError } from '../../core/errors.ts';
import type { PreRolloutStage, StageState } from './types.ts';

/**
 * SPEED-RL screening (Zhang et al., 2025, "SPEED-RL: Faster Training of Reasoning Models via
 * Online Curriculum Learning", arXiv:2506.09016): roll out each candidate a few times first and
 * continue to the full group only prompts whose screening pass rate is strictly between 0 and 1;
 * rounds repeat until the batch has its prompts. Screening rollouts of dropped prompts are paid
 * for and counted. Inferred: a continued prompt's group is its screening rollouts plus the rest
 * (G in all), and it is kept for training even if the whole group turns out uniform.
 */
export const SpeedParamsSchema = z.strictObject({
  screen: z
    .number()
    .int()
    .min(1)
    .default(4)
    .describe('screening rollouts per prompt (less than the group size)'),
});
export type SpeedParams = z.output<typeof SpeedParamsSchema>;

export class SpeedStage implements PreRolloutStage {
  readonly type = 'speed';
  readonly refills = true;
  private readonly p: SpeedParams;

  constructor(params: SpeedParams) {
    this.p = params;
  }

  init(): void {}

  screen(groupSize: number): number {
    return Math.max(0, Math.min(this.p.screen, groupSize - 1));
  }

  continueAfterScreen(rewards: readonly number[]): boolean {
    const finite = rewards.filter((r) => Number.isFinite(r));
    if (finite.length === 0) return false;
    const mean = finite.reduce((a, b) => a + b, 0) / finite.length;
    return mean > 0 && mean < 1;
  }

  state(): StageState {
    return { type: this.type, data: {} };
  }

  load(state: StageState): void {
    if (state.type !== this.type) throw new DataError({ message: `speed.load: a ${state.type} state` });
  }
}
