import { hashSeed, Rng } from '../../../src/core/rng.ts';
import { createSelector, type SelectorConfig } from '../../../src/selectors/registry.ts';
import type { Selector, SelectorTaskView, TaskFeedback } from '../../../src/selectors/types.ts';
import { isProbingSelector } from '../../../src/selectors/zoo/probe.ts';

/** 60 tasks over 5 levels and 3 domains; the true pass rate falls with the level. */
export function zooView(n = 60): SelectorTaskView {
  const ids = Array.from({ length: n }, (_, k) => `t${k}`);
  const level = Float64Array.from(ids, (_, k) => k % 5);
  const weak = Float64Array.from(ids, (_, k) => Math.max(0, 0.9 - 0.2 * (k % 5) - 0.01 * (k % 3)));
  const strong = Float64Array.from(weak, (w) => Math.min(1, w + 0.2));
  return {
    ids,
    features: { level, weak_pass_rate: weak, strong_pass_rate: strong },
    domains: ids.map((_, k) => `d${k % 3}`),
  };
}

/** Rewards of a task's group at a step: deterministic in (step, id), pass rate from the level. */
export function rewardsFor(id: string, step: number, g = 6): number[] {
  const k = Number(id.slice(1));
  const p = [0.95, 0.7, 0.5, 0.25, 0.02][k % 5]!;
  const rng = new Rng(hashSeed('zoo-env', step, id));
  return Array.from({ length: g }, () => (rng.float() < p ? 1 : 0));
}

/** One step of a run: probe if the selector asks, select, feed back. Returns the selection. */
export function step(sel: Selector, t: number, batch = 8): string[] {
  if (isProbingSelector(sel)) {
    const probe = sel.probe();
    if (probe.length > 0)
      sel.feedback(probe.map((id) => ({ taskId: id, rewards: rewardsFor(id, 1000 + t) })));
  }
  const ids = sel.select(batch, { step: t });
  const fb: TaskFeedback[] = ids.map((id) => ({ taskId: id, rewards: rewardsFor(id, t) }));
  sel.feedback(fb, { step: t });
  return ids;
}

export function build(config: SelectorConfig, view: SelectorTaskView = zooView(), seed = 7): Selector {
  return createSelector(config, view, seed);
}
