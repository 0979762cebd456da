import { defineRetrieval } from './retrieval.ts';

/** Uniform without replacement over the prompt's past rollouts (TorchRL's default), from the call's seeded stream. */
export const randomRetrieval = defineRetrieval({
  name: 'random',
  description: "k of the prompt's past rollouts uniformly at random, without replacement.",
  retrieve: (candidates, k, _view, rng) =>
    rng.sampleDistinct(candidates.length, Math.min(k, candidates.length)).map((i) => candidates[i]!),
});
