import { defineRetrieval, takeBy } from './retrieval.ts';

/** RePO's recency-based strategy: the prompt's most recent past rollouts (highest seq) first. */
export const recencyRetrieval = defineRetrieval({
  name: 'recency',
  description: "The prompt's newest past rollouts first.",
  retrieve: (candidates, k, view) => takeBy(candidates, k, view, (s) => -view.seq[s]!),
});
