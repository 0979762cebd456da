import { type Experience, type ExperienceInput, ExperienceSchema } from '../../../src/core/experience.ts';
import { Rng } from '../../../src/core/rng.ts';
import type { OperatorContext, OperatorDefinition, OperatorResult } from '../../../src/operators/operator.ts';

/** An experience with sensible defaults; `reward` may be NaN/Infinity. */
export function exp(over: Partial<ExperienceInput> & { groupId: string; reward: number }): Experience {
  const base = ExperienceSchema.parse({
    id: `${over.groupId}-${over.runIndex ?? 0}`,
    taskId: over.groupId.replace(/^g/, 't'),
    taskset: 'ts',
    runIndex: 0,
    modelVersion: 0,
    exploreStep: 0,
    response: '',
    ...over,
    reward: 0,
  });
  return { ...base, reward: over.reward };
}

/** `groups[g][i]` is the reward of run i of group `g<g>`. */
export function batchOf(groups: number[][]): Experience[] {
  const out: Experience[] = [];
  groups.forEach((rewards, g) => {
    rewards.forEach((reward, i) => {
      out.push(exp({ groupId: `g${g}`, runIndex: i, reward, response: `answer ${g}.${i}` }));
    });
  });
  return out;
}

export interface TestCtx extends OperatorContext {
  warnings: string[];
}

export function ctx(): TestCtx {
  const warnings: string[] = [];
  return { rng: new Rng(1), seed: 1, runId: 'test', warn: (m) => warnings.push(m), warnings };
}

/** Parse params with the definition's schema, create, and run one batch. */
export async function run(
  def: OperatorDefinition<Experience>,
  params: unknown,
  batch: readonly Experience[],
  c: OperatorContext = ctx(),
): Promise<OperatorResult<Experience>> {
  const op = def.create(def.params.parse(params));
  return await op.process(batch, c);
}

/** Run several operators in order, as the graph runner would, collecting every drop. */
export async function chain(
  steps: Array<[OperatorDefinition<Experience>, unknown]>,
  batch: readonly Experience[],
): Promise<{ rows: Experience[]; dropped: Array<{ op: string; reason: string; row: Experience }> }> {
  let rows = batch.slice();
  const dropped: Array<{ op: string; reason: string; row: Experience }> = [];
  for (const [def, params] of steps) {
    const res = await run(def, params, rows);
    rows = res.rows;
    for (const d of res.dropped) dropped.push({ op: def.name, reason: d.reason, row: d.row });
  }
  return { rows, dropped };
}

/** Round for golden comparisons (avoids -0 vs 0 and last-bit noise). */
export function r6(x: number): number {
  const v = Math.round(x * 1e6) / 1e6;
  return v === 0 ? 0 : v;
}
