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
  revisitSteps: z
    .number()
    .int()
    .nonnegative()
    .default(0)
    .describe(
      'Also revisit the prompts explored in the last this many explore steps before the batch’s newest (0 = only the prompts of the fresh groups, as in the paper).',
    ),
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
 * With `revisitSteps` r > 0 (Winnow's addition, off by default), the batch's room left after the
 * fresh groups goes to prompts explored in the last r explore steps (the most recent first), `k`
 * past rollouts each, by the same strategy and with the same separate advantages: RePO retrieves
 * only past rollouts of the batch's own prompts, which a selection that seldom revisits a prompt
 * (random over a large pool) rarely has.
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
        const taken = new Set<number>();
        for (const group of freshGroups(view)) {
          if (group.length > n - slots.length) break;
          // A past row retrieved for an earlier group of the same prompt is not retrieved again.
          const candidates = (past.get(view.facts(group[0]!).taskId) ?? []).filter((s) => !taken.has(s));
          const k = Math.min(p.offPolicyPerPrompt, n - slots.length - group.length);
          const retrieved = retrieval.retrieve(candidates, k, view, rng);
          for (const s of retrieved) taken.add(s);
          slots.push(...group, ...retrieved);
        }
        if (p.revisitSteps > 0 && slots.length > 0)
          for (const task of revisitedPrompts(view, slots, past, p.revisitSteps)) {
            const k = Math.min(p.offPolicyPerPrompt, n - slots.length);
            if (k === 0) break;
            const candidates = past.get(task)!.filter((s) => !taken.has(s));
            const retrieved = retrieval.retrieve(candidates, k, view, rng);
            for (const s of retrieved) taken.add(s);
            slots.push(...retrieved);
          }
        return { slots, weights: slots.map(() => 1) };
      },
      prepare: (batch) => separateAdvantages(batch, p.advantageEpsilon),
    };
  },
});

/**
 * The prompts to revisit beside a batch's fresh groups: those with a past rollout explored within
 * `steps` explore steps before the newest delivered fresh row's, other than the batch's own
 * prompts; the most recently explored first (ties: the newest row first).
 */
function revisitedPrompts(
  view: CandidateView,
  slots: readonly number[],
  past: ReadonlyMap<string, number[]>,
  steps: number,
): string[] {
  let now = Number.NEGATIVE_INFINITY;
  const own = new Set<string>();
  for (const s of slots)
    if (view.uses(s) === 0) {
      now = Math.max(now, view.facts(s).exploreStep);
      own.add(view.facts(s).taskId);
    }
  const recent: { task: string; step: number; seq: number }[] = [];
  for (const [task, rows] of past) {
    if (own.has(task)) continue;
    const newest = rows[rows.length - 1]!;
    const step = view.facts(newest).exploreStep;
    if (step >= now - steps && step < now) recent.push({ task, step, seq: view.seq[newest]! });
  }
  recent.sort((a, b) => b.step - a.step || b.seq - a.seq);
  return recent.map((r) => r.task);
}

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
