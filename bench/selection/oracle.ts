import { BaseSelector } from '../../src/selectors/base.ts';
import type { LearnerSim } from '../../src/selectors/sim/learner-sim.ts';
import { TopK } from '../../src/selectors/top-k.ts';

/**
 * The benchmark's upper reference: it reads the simulated learner's true current pass rates and
 * takes the tasks closest to the target. Not a real selector (no real run knows these).
 */
export class OracleSelector extends BaseSelector {
  readonly type = 'oracle';
  private readonly sim: LearnerSim;
  private readonly target: number;

  constructor(seed: number, sim: LearnerSim, target = 0.5) {
    super(seed);
    this.sim = sim;
    this.target = target;
  }

  predict(taskIds: readonly string[]): Float64Array {
    return Float64Array.from(taskIds, (id) => this.sim.passRate(this.sim.indexOf(id)));
  }

  protected pick(n: number): Int32Array {
    const size = this.ids.length;
    const top = new TopK(Math.min(n, size));
    for (let k = 0; k < size; k++) {
      const key = Math.abs(this.sim.passRate(this.sim.indexOf(this.ids[k]!)) - this.target);
      if (key <= top.bound) top.offer(key, k);
    }
    const picked = top.sorted();
    if (picked.length === n) return picked;
    return Int32Array.from({ length: n }, (_, i) => picked[i % picked.length]!);
  }
}
