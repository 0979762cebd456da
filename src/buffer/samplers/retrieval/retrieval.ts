import type { Rng } from '../../../core/rng.ts';
import type { CandidateView } from '../sampler.ts';

/**
 * The prompt-group retrieval contract: given the stored past rollouts of ONE prompt (task), which
 * `k` to replay beside its fresh group, in order. RePO (arXiv:2506.09340) calls these replay
 * strategies; TorchRL's `PromptGroupSampler` offers the same choice (random, recency, reward,
 * variance). A retrieval only orders slots: the sampler that uses it (samplers/repo.ts) decides
 * which rows are candidates (eligible, already trained on once) and the buffer owns the leases, so
 * retrieved rows get the same exactly-once leases and resume as every other delivery.
 *
 * A new strategy is one file with `defineRetrieval({...})` and one line in retrievalRegistry()
 * (retrieval/registry.ts).
 */
export interface GroupRetrieval {
  readonly name: string;
  readonly description: string;
  /** Set when `retrieve` reads `facts(slot).entropy` (the buffer then rebuilds it on open). */
  readonly needsEntropy?: boolean;
  /**
   * Up to `k` of `candidates` (one prompt's past rollouts, in seq order) in delivery order.
   * `rng` is the sample call's seeded stream: the only randomness allowed.
   */
  retrieve(candidates: readonly number[], k: number, view: CandidateView, rng: Rng): number[];
}

export function defineRetrieval(def: GroupRetrieval): GroupRetrieval {
  return def;
}

/** Sort `slots` by `key` (ascending), ties newest first (higher seq), and keep `k`. */
export function takeBy(
  slots: readonly number[],
  k: number,
  view: CandidateView,
  key: (slot: number) => number,
): number[] {
  const keyed = slots.map((s) => ({ s, v: key(s) }));
  keyed.sort((a, b) => a.v - b.v || view.seq[b.s]! - view.seq[a.s]!);
  return keyed.slice(0, k).map((x) => x.s);
}
