import type { Selector } from '../types.ts';

/**
 * A selector that wants rollouts it does not train on before it selects (DOTS's reference set).
 * A runner asks `probe()` before each `select`; when it returns ids, it rolls each out (a full
 * group), feeds the groups back through `feedback`, and counts those rollouts in the run's bill.
 */
export interface ProbingSelector extends Selector {
  /** Task ids to roll out before the next `select` (empty when no probe is due). */
  probe(): string[];
}

export function isProbingSelector(s: Selector): s is ProbingSelector {
  return typeof (s as Partial<ProbingSelector>).probe === 'function';
}
