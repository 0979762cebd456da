// The curriculum bench's own step protocol as a pre-rollout stage, so that every selector — with or
// without the zoo's stages — runs through the same staged step and pays for every rollout the same
// way: each round asks the selector for `batchTasks` tasks, rolls them all out, trains on groups with
// mixed rewards up to the step's quota, and rounds repeat (up to maxRounds) until the quota is met.
import { isMixed, type PreRolloutStage, type StageState } from '../../src/selectors/stages/types.ts';

export class BenchRoundsStage implements PreRolloutStage {
  readonly type = 'bench_rounds';
  readonly refills = true;
  private readonly batchTasks: number;

  constructor(batchTasks: number) {
    this.batchTasks = batchTasks;
  }

  init(): void {}

  candidates(): number {
    return this.batchTasks;
  }

  keep(rewards: readonly number[]): boolean {
    return isMixed(rewards);
  }

  state(): StageState {
    return { type: this.type, data: {} };
  }

  load(): void {}
}
