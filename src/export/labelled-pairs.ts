import type { Experience } from '../core/experience.ts';
import type { DroppedGroup, PreferencePair } from '../core/preference-pairs.ts';

/** A pair a person marked in the Studio: in group `groupId`, `chosenId` is better than `rejectedId`. */
export interface LabelledPair {
  groupId: string;
  chosenId: string;
  rejectedId: string;
}

/**
 * Put people's labels over the reward-built pairs: a labelled group yields the labelled pair (even
 * where rewards tie, or disagree — then its margin is ≤ 0), and leaves the dropped list. A label
 * whose responses are not in the batch (filtered out, or removed since) changes nothing.
 * Pairs keep the batch's group order.
 */
export function applyLabelledPairs(
  batch: readonly Experience[],
  pairs: readonly PreferencePair[],
  dropped: readonly DroppedGroup[],
  labels: readonly LabelledPair[],
): { pairs: PreferencePair[]; dropped: DroppedGroup[] } {
  if (labels.length === 0) return { pairs: [...pairs], dropped: [...dropped] };
  const byId = new Map(batch.map((e) => [e.id, e]));
  const labelled = new Map<string, PreferencePair>();
  for (const l of labels) {
    const chosen = byId.get(l.chosenId);
    const rejected = byId.get(l.rejectedId);
    if (!chosen || !rejected || chosen.groupId !== l.groupId || rejected.groupId !== l.groupId) continue;
    labelled.set(l.groupId, {
      groupId: l.groupId,
      taskId: chosen.taskId,
      ...(chosen.prompt !== undefined ? { prompt: chosen.prompt } : {}),
      ...(chosen.messages !== undefined ? { messages: chosen.messages } : {}),
      chosen,
      rejected,
      margin: chosen.reward - rejected.reward,
    });
  }
  const order: string[] = [];
  for (const e of batch) if (!order.includes(e.groupId)) order.push(e.groupId);
  const built = new Map(pairs.map((p) => [p.groupId, p]));
  const out: PreferencePair[] = [];
  for (const g of order) {
    const p = labelled.get(g) ?? built.get(g);
    if (p) out.push(p);
  }
  return { pairs: out, dropped: dropped.filter((d) => !labelled.has(d.groupId)) };
}
