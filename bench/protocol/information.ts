// What a method knows about the learner, and what that knowledge costs in rollouts. The rule:
// - pool columns (the task's own metadata: level, digits, …) are free: any method may read them;
// - a reference column measured on ANOTHER model (a different learner, or the SFT reference) is free;
// - a pass-rate column measured on THIS learner costs the rollouts measuring it would take: the stated
//   rollouts per task × the tasks it covers, charged at the start of the run (the curve is shifted);
// - an oracle column (the learner's true pass rates during the run) cannot be paid for: a method that
//   reads one is reported, labelled as an oracle, outside the ranking.
import { z } from 'zod';

export const informationSourceSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('pool_columns'), columns: z.array(z.string()).min(1) }),
  z.strictObject({
    kind: z.literal('reference_model'),
    columns: z.array(z.string()).min(1),
    /** Which other model the column was measured on. */
    model: z.string().min(1),
  }),
  z.strictObject({
    kind: z.literal('learner_pass_rates'),
    columns: z.array(z.string()).min(1),
    rolloutsPerTask: z.number().int().min(1),
    tasks: z.number().int().min(1),
  }),
  z.strictObject({ kind: z.literal('oracle'), columns: z.array(z.string()).min(1) }),
]);
export type InformationSource = z.infer<typeof informationSourceSchema>;

/** Rollouts a method is charged for what it reads before training (0 for free sources and oracles). */
export function informationCharge(sources: readonly InformationSource[]): number {
  let charge = 0;
  for (const s of sources) {
    const checked = informationSourceSchema.parse(s);
    if (checked.kind === 'learner_pass_rates') charge += checked.rolloutsPerTask * checked.tasks;
  }
  return charge;
}

/** Whether a method reads a column no rollout budget can buy (it stays outside the ranking). */
export function readsOracle(sources: readonly InformationSource[]): boolean {
  return sources.some((s) => s.kind === 'oracle');
}

/** One line for a table: what the method reads and what it was charged. */
export function describeInformation(sources: readonly InformationSource[]): string {
  if (sources.length === 0) return 'rewards of its own rollouts only';
  return sources.map(describeSource).join('; ');
}

function describeSource(s: InformationSource): string {
  if (s.kind === 'pool_columns') return 'pool columns (free)';
  if (s.kind === 'reference_model') return `${s.columns.join(', ')} from ${s.model}, free`;
  if (s.kind === 'learner_pass_rates')
    return `${s.columns.join(', ')} from this learner, ${s.rolloutsPerTask} rollouts × ${s.tasks} tasks charged`;
  return `${s.columns.join(', ')}: no budget buys it (oracle, unranked)`;
}
