import { evaluateSets } from './evaluation/evaluate-sets.ts';
import type { RunState } from './run-state.ts';

/** Whether the evaluation sets are due after explorer step `step` (every N steps, and the last). */
export function evalSetsDue(run: RunState, step: number): boolean {
  const e = run.config.evaluation;
  return (
    !!e && (run.parts.evalSets?.length ?? 0) > 0 && (step % e.every === 0 || step === run.lifecycle.steps)
  );
}

/**
 * Sample and score every evaluation set now: one `onEvaluate` event per set (with `set`, `k`,
 * `passAtK`), one log line, and the `eval/<set>/mean@k` / `pass@k` keys for the step record.
 */
export async function evaluateSetsAt(run: RunState, step: number): Promise<Record<string, number>> {
  const sets = run.parts.evalSets ?? [];
  if (sets.length === 0) return {};
  const { metrics, results } = await evaluateSets(sets);
  for (const r of results) {
    await run.hooks.emit('onEvaluate', {
      step,
      accuracy: r.meanAtK,
      tasks: r.tasks,
      set: r.set,
      k: r.k,
      passAtK: r.passAtK,
    });
    run.log(
      `evaluation '${r.set}' at step ${step}: mean@${r.k} ${r.meanAtK.toFixed(3)}, pass@${r.k} ${r.passAtK.toFixed(3)} (${r.tasks} tasks)`,
    );
  }
  return metrics;
}
