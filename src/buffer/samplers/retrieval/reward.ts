import { defineRetrieval, takeBy } from './retrieval.ts';

/**
 * RePO's reward-oriented strategy, per prompt: the past rollouts with the highest reward first
 * (ties newest first; a NaN reward ranks last).
 */
export const rewardRetrieval = defineRetrieval({
  name: 'reward',
  description: "The prompt's highest-reward past rollouts first (ties: newest).",
  retrieve: (candidates, k, view) =>
    takeBy(candidates, k, view, (s) => {
      const r = view.facts(s).reward;
      return Number.isNaN(r) ? Number.POSITIVE_INFINITY : -r;
    }),
});
