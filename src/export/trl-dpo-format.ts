import type { Experience } from '../core/experience.ts';
import { buildPreferencePairs } from '../core/preference-pairs.ts';
import { chatType, field, float64, rowsToTable, utf8 } from './arrow-build.ts';
import { conversationOf, hasPrompt, isConversational } from './chat.ts';
import type { ExportDrop, ExportFormat, ExportOptions, ExportResult, ExportSource } from './export-format.ts';
import { applyLabelledPairs } from './labelled-pairs.ts';

/**
 * TRL's preference layout for DPOTrainer: `prompt`, `chosen`, `rejected` (chat turns when any
 * pair has messages, else strings), one pair per experience group — best vs worst reward, built by
 * src/trainer/preference-pairs.ts, the same rule the in-process DPO trainer uses. Groups without a
 * pair (a tie, a margin below --min-margin, one rollout, a NaN reward) are recorded with the reason.
 */
export function buildTrlDpo(batch: readonly Experience[], options: ExportOptions): ExportResult {
  const dropped: ExportDrop[] = [];
  const usable = batch.filter((e) => {
    if (hasPrompt(e)) return true;
    dropped.push({
      format: 'trl-dpo',
      id: e.id,
      taskId: e.taskId,
      reason: 'no_prompt',
      detail: 'the rollout has neither prompt nor messages',
    });
    return false;
  });
  const built = buildPreferencePairs(usable, { minMargin: options.minMargin });
  // Pairs labelled in winnow studio replace the reward-built pair of their group.
  const { pairs, dropped: groups } = applyLabelledPairs(
    usable,
    built.pairs,
    built.dropped,
    options.labelledPairs ?? [],
  );
  for (const g of groups)
    dropped.push({ format: 'trl-dpo', id: g.groupId, taskId: g.taskId, reason: g.reason, detail: g.detail });
  const chat = isConversational(
    pairs.flatMap((p) => [p.chosen, p.rejected]),
    options.conversational,
  );
  const text = () => (chat ? chatType() : utf8());
  const fields = [
    field('prompt', text()),
    field('chosen', text()),
    field('rejected', text()),
    field('task_id', utf8()),
    field('taskset', utf8()),
    field('group_id', utf8()),
    field('chosen_id', utf8()),
    field('rejected_id', utf8()),
    field('chosen_reward', float64()),
    field('rejected_reward', float64()),
    field('margin', float64()),
  ];
  const rows = pairs.map((p) => {
    const chosen = conversationOf(p.chosen);
    const rejected = conversationOf(p.rejected);
    return {
      prompt: chat ? chosen.prompt : (p.chosen.prompt ?? ''),
      chosen: chat ? chosen.completion : p.chosen.response,
      rejected: chat ? rejected.completion : p.rejected.response,
      task_id: p.taskId,
      taskset: p.chosen.taskset,
      group_id: p.groupId,
      chosen_id: p.chosen.id,
      rejected_id: p.rejected.id,
      chosen_reward: p.chosen.reward,
      rejected_reward: p.rejected.reward,
      margin: p.margin,
    };
  });
  return {
    table: rowsToTable(fields, rows, (i) => `group '${pairs[i]!.groupId}'`),
    rows,
    dropped,
    notes: [],
  };
}

export const trlDpoFormat: ExportFormat = {
  name: 'trl-dpo',
  summary:
    'TRL preference pairs (DPOTrainer) from experience groups: prompt, chosen (best reward), rejected (worst); ties and margins below --min-margin dropped and recorded',
  reads: 'experiences',
  build(source: ExportSource, options: ExportOptions): ExportResult {
    if (source.kind !== 'experiences') throw new TypeError('trl-dpo reads experience rows');
    return buildTrlDpo(source.experiences, options);
  },
};
