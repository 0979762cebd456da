import type { Table } from '@lancedb/lancedb';
import { columnKinds } from '../inspect/where-filter.ts';
import { HttpError } from '../serve/http-error.ts';
import { sqlString } from '../store/sql.ts';
import { rewardEtag } from './experience-edits.ts';
import { jsonCell } from './json-cells.ts';
import { readPreferenceLabels } from './preference-labels.ts';
import { whereSql } from './rows-query.ts';
import { openStudioTable, type StudioContext, studioConnection } from './studio-context.ts';
import { tokenDecoderFor } from './token-texts.ts';

async function experienceTable(ctx: StudioContext, name: string): Promise<Table> {
  const table = await openStudioTable(ctx, name);
  const names = new Set((await table.schema()).fields.map((f) => f.name));
  if (!names.has('group_id') || !names.has('reward'))
    throw new HttpError({
      status: 400,
      code: 'not_an_experience_table',
      field: 'table',
      message: `table '${name}' holds no experience groups (no group_id/reward columns)`,
      hint: "a run's buffer table holds them (winnow runs shows it)",
    });
  return table;
}

/**
 * Groups of an experience table, a page at a time: reads the group_id/task_id/reward columns of the
 * matching rows only (never responses or tokens) and summarises each group.
 */
export async function listGroups(
  ctx: StudioContext,
  o: { table: string; where?: string | undefined; offset: number; limit: number },
) {
  const table = await experienceTable(ctx, o.table);
  let q = table.query().select(['group_id', 'task_id', 'explore_step', 'reward']);
  if (o.where) q = q.where(whereSql(o.where, columnKinds(await table.schema())));
  const data = await q.toArrow();
  const groups = new Map<string, { taskId: string; step: number; rewards: number[]; n: number }>();
  for (let i = 0; i < data.numRows; i++) {
    const gid = String(data.getChild('group_id')!.get(i));
    const g = groups.get(gid) ?? {
      taskId: String(data.getChild('task_id')!.get(i)),
      step: Number(data.getChild('explore_step')!.get(i)),
      rewards: [],
      n: 0,
    };
    g.n++;
    const r = Number(data.getChild('reward')!.get(i));
    if (Number.isFinite(r)) g.rewards.push(r);
    groups.set(gid, g);
  }
  const all = [...groups].map(([groupId, g]) => {
    const mean = g.rewards.length === 0 ? null : g.rewards.reduce((a, b) => a + b, 0) / g.rewards.length;
    const std =
      mean === null ? null : Math.sqrt(g.rewards.reduce((a, b) => a + (b - mean) ** 2, 0) / g.rewards.length);
    return { groupId, taskId: g.taskId, step: g.step, rollouts: g.n, meanReward: mean, rewardStd: std };
  });
  const labelled = new Set((await readPreferenceLabels(ctx.dbDir, o.table)).map((l) => l.groupId));
  const page = all
    .slice(o.offset, o.offset + o.limit)
    .map((g) => ({ ...g, labelled: labelled.has(g.groupId) }));
  return { total: all.length, unlabelled: all.filter((g) => !labelled.has(g.groupId)).length, groups: page };
}

/**
 * One group: its prompt, each response with reward, advantage and (where stored) tokens with
 * logprobs and their texts (the run's tokenizer, src/studio/token-texts.ts) for the token view; why it was filtered (its `rejected` records); its preference label.
 */
export async function groupDetail(ctx: StudioContext, o: { table: string; groupId: string }) {
  const table = await experienceTable(ctx, o.table);
  const data = await table
    .query()
    .where(`group_id = ${sqlString(o.groupId)}`)
    .toArrow();
  if (data.numRows === 0) return droppedGroup(ctx, o);
  const rows = data.toArray().map((r) => jsonCell(r.toJSON()) as Record<string, unknown>);
  rows.sort((a, b) => Number(a.run_index ?? 0) - Number(b.run_index ?? 0));
  const first = rows[0]!;
  const hasTokens = rows.some((r) => Array.isArray(r.tokens) && r.tokens.length > 0);
  const decoder = hasTokens ? await tokenDecoderFor(ctx, o.table) : null;
  const responses = rows.map((r) => {
    const tokens = Array.isArray(r.tokens) ? (r.tokens as number[]) : [];
    const promptLength = Number(r.prompt_length ?? 0);
    const reward = typeof r.reward === 'number' ? r.reward : Number.NaN;
    return {
      id: String(r.id),
      runIndex: Number(r.run_index ?? 0),
      response: String(r.response ?? ''),
      reward: Number.isFinite(reward) ? reward : null,
      etag: rewardEtag(reward),
      advantage: typeof r.advantage === 'number' ? r.advantage : null,
      responseTokens: tokens.slice(promptLength),
      // Each response token's text with the run's tokenizer; null when none could be loaded.
      tokenTexts: decoder?.decode ? tokens.slice(promptLength).map(decoder.decode) : null,
      logprobs: Array.isArray(r.logprobs) ? (r.logprobs as number[]) : [],
    };
  });
  const ids = responses.map((r) => r.id);
  const why = await filteredWhy(ctx, [o.groupId, ...ids]);
  const label = (await readPreferenceLabels(ctx.dbDir, o.table)).find((l) => l.groupId === o.groupId) ?? null;
  return {
    table: o.table,
    groupId: o.groupId,
    taskId: String(first.task_id ?? ''),
    step: Number(first.explore_step ?? 0),
    prompt: first.prompt ?? null,
    messages: first.messages ?? null,
    responses,
    tokenizer: decoder ? { name: decoder.tokenizer, note: decoder.note } : null,
    filtered: why,
    preference: label,
    dropped: false,
  };
}

/**
 * A group the run dropped whole (a stage or a rollout failure): no row of it is in the buffer
 * table, but its `rejected` records say why, and their payload names its task and rewards.
 */
async function droppedGroup(ctx: StudioContext, o: { table: string; groupId: string }) {
  const why = await filteredWhy(ctx, [o.groupId], true);
  if (why.length === 0)
    throw new HttpError({
      status: 404,
      code: 'unknown_row',
      field: 'groupId',
      message: `no group '${o.groupId}' in table '${o.table}', and no rejected row names it`,
    });
  const payload = why.map((w) => parsePayload(w.payload)).find((p) => p !== null) ?? {};
  return {
    table: o.table,
    groupId: o.groupId,
    taskId: typeof payload.taskId === 'string' ? payload.taskId : '',
    step: null,
    prompt: null,
    messages: null,
    responses: [],
    tokenizer: null,
    filtered: why.map(({ step, reason, row_id }) => ({ step, reason, row_id })),
    preference: null,
    dropped: true,
    rewards: Array.isArray(payload.rewards) ? payload.rewards : null,
  };
}

function parsePayload(text: string | undefined): Record<string, unknown> | null {
  try {
    const v = JSON.parse(text ?? '') as unknown;
    return v !== null && typeof v === 'object' ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** The `rejected` records naming this group or its rollouts (an experience operator filtered them). */
async function filteredWhy(ctx: StudioContext, rowIds: string[], withPayload = false) {
  const conn = await studioConnection(ctx);
  if (!(await conn.tableNames()).includes('rejected')) return [];
  const rejected = await conn.openTable('rejected');
  const data = await rejected
    .query()
    .where(`row_id IN (${rowIds.map(sqlString).join(', ')})`)
    .select(['step', 'reason', 'row_id', ...(withPayload ? ['payload'] : [])])
    .limit(50)
    .toArrow();
  return data
    .toArray()
    .map((r) => r.toJSON() as { step: string; reason: string; row_id: string; payload?: string });
}
