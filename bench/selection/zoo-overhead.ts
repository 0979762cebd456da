// Selector time per step at scale for the bench line-up (issue #22's "selector ms per step at 1M
// tasks"): one simulated pool of N tasks, each entry's selector (and its stages) built on it, a few
// untimed steps, then the median wall time of a step with the rollouts themselves left out.
import { LearnerSim } from '../../src/selectors/sim/learner-sim.ts';
import { buildStages } from '../../src/selectors/stages/registry.ts';
import { type RolloutRequest, runStagedStep } from '../../src/selectors/stages/staged-step.ts';
import type { BenchSelector } from './lineup.ts';

export interface StepOverhead {
  selector: string;
  tasks: number;
  /** Median ms per step (select, feedback, stages, probes), rollout generation excluded. */
  medianMs: number;
  initMs: number;
  /** Typed-array bytes of the selector's checkpoint per task (its per-task memory, roughly). */
  stateBytesPerTask: number;
}

export function measureOverhead(
  entries: readonly BenchSelector[],
  tasks: number,
  opts: { batch?: number; steps?: number; warmup?: number; onProgress?: (m: string) => void } = {},
): StepOverhead[] {
  const batch = opts.batch ?? 32;
  const steps = opts.steps ?? 8;
  const warmup = opts.warmup ?? 3;
  const sim = new LearnerSim({ tasks, heldOut: 10 }, 1);
  const out: StepOverhead[] = [];
  for (const entry of entries) {
    if (entry.name === 'oracle') continue;
    const t0 = performance.now();
    const sel = entry.build(sim, 1);
    const stages = buildStages(entry.stages ?? [], 1);
    for (const s of stages) s.init(sim.view());
    const initMs = performance.now() - t0;
    const times: number[] = [];
    for (let t = 0; t < warmup + steps; t++) {
      let rolloutMs = 0;
      let call = 0;
      const rollout = (req: RolloutRequest) => {
        const r0 = performance.now();
        const r = sim.rollout(req.ids, t + 100_000 * call++).map((g) => g.rewards.slice(0, req.rollouts));
        rolloutMs += performance.now() - r0;
        return r;
      };
      const s0 = performance.now();
      runStagedStep(sel, stages, { want: batch, groupSize: sim.config.groupSize, step: t }, rollout);
      if (t >= warmup) times.push(performance.now() - s0 - rolloutMs);
    }
    times.sort((a, b) => a - b);
    const state = JSON.stringify(sel.state());
    out.push({
      selector: entry.name,
      tasks,
      medianMs: times[Math.floor(times.length / 2)]!,
      initMs,
      // base64 text is 4/3 of the bytes it holds.
      stateBytesPerTask: (state.length * 0.75) / tasks,
    });
    opts.onProgress?.(
      `overhead at ${tasks} tasks: ${entry.name} ${out[out.length - 1]!.medianMs.toFixed(2)} ms/step`,
    );
  }
  return out;
}
