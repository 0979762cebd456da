import { defineRetrieval, takeBy } from './retrieval.ts';

/**
 * Lowest sequence entropy first (the behaviour policy's mean −log π over the action tokens,
 * src/buffer/sequence-stats.ts): ExGRPO's (arXiv:2510.02245) trajectory preference offered as a
 * RePO strategy. Rows without log-probs (NaN) rank last; ties newest first.
 */
export const entropyRetrieval = defineRetrieval({
  name: 'entropy',
  description: "The prompt's lowest-entropy past rollouts first.",
  needsEntropy: true,
  retrieve: (candidates, k, view) =>
    takeBy(candidates, k, view, (s) => {
      const h = view.facts(s).entropy;
      return Number.isNaN(h) ? Number.POSITIVE_INFINITY : h;
    }),
});
