import { pushTo } from '../replay-pools.ts';
import { defineRetrieval } from './retrieval.ts';

/**
 * RePO's variance-driven strategy, per prompt: rollouts from the prompt's past GRPO groups whose
 * rewards varied most (population variance over the group's candidates; a uniform group carries no
 * advantage signal), whole groups first, ties: newest group; inside a group in seq order.
 */
export const varianceRetrieval = defineRetrieval({
  name: 'variance',
  description: "Rollouts of the prompt's past groups with the highest reward variance first.",
  retrieve: (candidates, k, view) => {
    const groups = new Map<number, number[]>();
    for (const s of candidates) {
      const g = view.group[s]!;
      pushTo(groups, g, s);
    }
    const ranked = [...groups.values()].map((members) => {
      const r = members.map((s) => view.facts(s).reward).map((x) => (Number.isNaN(x) ? 0 : x));
      const mean = r.reduce((a, b) => a + b, 0) / r.length;
      const variance = r.reduce((a, b) => a + (b - mean) ** 2, 0) / r.length;
      return { members, variance, newest: Math.max(...members.map((s) => view.seq[s]!)) };
    });
    ranked.sort((a, b) => b.variance - a.variance || b.newest - a.newest);
    return ranked.flatMap((g) => g.members).slice(0, k);
  },
});
