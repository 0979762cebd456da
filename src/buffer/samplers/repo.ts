import { z } from 'zod';
import type { Experience } from '../../core/experience.ts';
import { groupAdvantages } from './group-advantages.ts';
import { freshSlots, pastByTask, pushTo } from './replay-pools.ts';
import { retrievalRegistry } from './retrieval/registry.ts';
import { type CandidateView, defineSampler, ReuseParamsShape, reuseLimits } from './sampler.ts';

export const RepoParamsSchema = z.strictObject({
  strategy: z
    .string()
    .default('recency')
    .describe('How past rollouts of a prompt are retrieved: recency, reward, variance, entropy, random.'),
  offPolicyPerPrompt: z
    .number()
    .int()
    .nonnegative()
    .default(4)
    .describe('Past rollouts of the same prompt retrieved beside each fresh group (k).'),
  advantageEpsilon: z
    .number()
    .positive()
    .default(1e-6)
    .describe('Added to the standard deviation when the off-policy rows’ advantages are normalised.'),
  ...ReuseParamsShape,
});
export type RepoParams = z.output<typeof RepoParamsSchema>;

/**
 * RePO (Li et al., "RePO: Replay-Enhanced Policy Optimization", arXiv:2506.09340): GRPO whose every
 * fresh (on-policy) group of a prompt is joined by `k` off-policy rollouts of the SAME prompt from
 * the buffer, chosen by a replay strategy (samplers/retrieval/: recency, reward, variance, entropy,
 * random), and whose advantages are computed separately for the two sets: the delivered copies of
 * the off-policy rows get (r − mean)/(std + ε) over the off-policy rows of their prompt in this
 * batch; fresh rows keep the advantage the explorer computed within their own group.
 *
 * Order: each fresh group (oldest first, taken whole) followed by its retrieved rows; a group that
 * does not fit what is left of the batch ends it. Rows already trained on once are candidates.
 *
 * Departures: the paper's buffer holds every past rollout with no use limit; here the buffer's
 * `maxUses`/cooldowns (default unlimited) and `capacity` apply. Its strategies are defined over the
 * prompt's history as the paper and TorchRL describe them; `entropy` is Winnow's addition. The
 * off-policy term's correction (importance ratio against the stored behaviour log-probs, clipped)
 * is the trainer's.
 */
export const repoSampler = defineSampler({
  name: 'repo',
  description:
    'RePO (arXiv:2506.09340): each fresh group plus k past rollouts of the same prompt; separate off-policy advantages.',
  params: RepoParamsSchema,
  create: (p) => {
    const retrieval = retrievalRegistry().get(p.strategy, 'buffer.sampler.params.strategy');
    return {
      name: 'repo',
      limits: reuseLimits(p),
      remover: 'oldest',
      priority: () => 0,
      fixedPriority: 0,
      ...(retrieval.needsEntropy ? { needsEntropy: true } : {}),
      select: (view, n, { rng }) => {
        const slots: number[] = [];
        const past = pastByTask(view);
        for (const group of freshGroups(view)) {
          if (group.length > n - slots.length) break;
          const candidates = past.get(view.facts(group[0]!).taskId) ?? [];
          const k = Math.min(p.offPolicyPerPrompt, n - slots.length - group.length);
          slots.push(...group, ...retrieval.retrieve(candidates, k, view, rng));
        }
        return { slots, weights: slots.map(() => 1) };
      },
      prepare: (batch) => separateAdvantages(batch, p.advantageEpsilon),
    };
  },
});

/** Fresh rows grouped by GRPO group, groups in the order of their oldest fresh row. */
function freshGroups(view: CandidateView): number[][] {
  const groups = new Map<number, number[]>();
  for (const s of freshSlots(view)) {
    const g = view.group[s]!;
    pushTo(groups, g, s);
  }
  return [...groups.values()];
}

/** RePO's separate advantages: the off-policy (replayed, `useCount > 1`) rows of each prompt are normalised among themselves. */
export function separateAdvantages(batch: Experience[], epsilon: number): void {
  const offPolicy = batch.filter((e) => e.useCount > 1);
  const byTask = new Map<string, Experience[]>();
  for (const e of offPolicy) {
    pushTo(byTask, e.taskId, e);
  }
  for (const rows of byTask.values()) {
    const adv = groupAdvantages(
      rows.map((e) => e.reward),
      epsilon,
    );
    rows.forEach((e, i) => {
      e.advantage = adv[i]!;
      e.advantages = undefined;
    });
  }
}
