import { Registry } from '../../../core/registry.ts';
import { entropyRetrieval } from './entropy.ts';
import { randomRetrieval } from './random.ts';
import { recencyRetrieval } from './recency.ts';
import type { GroupRetrieval } from './retrieval.ts';
import { rewardRetrieval } from './reward.ts';
import { varianceRetrieval } from './variance.ts';

/** Prompt-group retrieval strategies by name (`sampler: { type: repo, params: { strategy: reward } }`); a fresh registry per call. */
export function retrievalRegistry(): Registry<GroupRetrieval> {
  const reg = new Registry<GroupRetrieval>('retrieval strategy');
  for (const def of [recencyRetrieval, rewardRetrieval, varianceRetrieval, entropyRetrieval, randomRetrieval])
    reg.register(def);
  return reg;
}
