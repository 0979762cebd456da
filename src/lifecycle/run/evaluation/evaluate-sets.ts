import type { EvalSet } from './eval-sets.ts';
import { type SetScores, scoreSet } from './pass-at-k.ts';

/** Metric keys of a set in step records and metrics.jsonl: `eval/<set>/mean@<k>`, `eval/<set>/pass@<k>`. */
export const evalKeys = (set: string, k: number) => ({
  mean: `eval/${set}/mean@${k}`,
  pass: `eval/${set}/pass@${k}`,
});

/** Counters keep the step-0 numbers (they survive a resume in the checkpoint): `initial/<key>`. */
export const INITIAL_PREFIX = 'initial/';

export interface SetResult extends SetScores {
  set: string;
  k: number;
}

/**
 * Sample and score every set, one after the other (in config order). Returns the metric keys for
 * the step record and each set's scores (for hooks and logs).
 */
export async function evaluateSets(
  sets: readonly EvalSet[],
): Promise<{ metrics: Record<string, number>; results: SetResult[] }> {
  const metrics: Record<string, number> = {};
  const results: SetResult[] = [];
  for (const s of sets) {
    const scores = scoreSet(await s.sample(), s.k, s.correctAt, s.n);
    const keys = evalKeys(s.name, s.k);
    metrics[keys.mean] = scores.meanAtK;
    metrics[keys.pass] = scores.passAtK;
    results.push({ set: s.name, k: s.k, ...scores });
  }
  return { metrics, results };
}

/** The step-0 evaluation numbers kept in a run's counters, under their metric keys. */
export function initialEvaluation(counters: Readonly<Record<string, number>>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(counters))
    if (k.startsWith(`${INITIAL_PREFIX}eval/`)) out[k.slice(INITIAL_PREFIX.length)] = v;
  return out;
}
