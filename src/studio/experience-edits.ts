import type { Table } from '@lancedb/lancedb';
import { z } from 'zod';
import { HttpError } from '../serve/http-error.ts';
import { sqlString } from '../store/sql.ts';
import { EditLog, type EditRecord } from './edit-log.ts';
import { addPreferenceLabel, removePreferenceLabel } from './preference-labels.ts';
import {
  checkWritable,
  openStudioTable,
  type StudioContext,
  staleEdit,
  studioConnection,
} from './studio-context.ts';
import { serialized } from './write-queue.ts';

/**
 * Human edits of experience rows: a reward override (a new table version; exports and the next
 * sample read the new reward, the edit log keeps the old one) and preference labels.
 */

async function requireExperienceTable(table: Table): Promise<void> {
  const names = new Set((await table.schema()).fields.map((f) => f.name));
  for (const n of ['id', 'group_id', 'reward', 'response'])
    if (!names.has(n))
      throw new HttpError({
        status: 400,
        code: 'not_an_experience_table',
        field: 'table',
        message: `table '${table.name}' is not an experience table (no ${n} column)`,
        hint: "a run's buffer table holds experiences (winnow runs shows it)",
      });
}

async function readExperience(table: Table, id: string): Promise<{ reward: number; groupId: string }> {
  const data = await table
    .query()
    .where(`id = ${sqlString(id)}`)
    .select(['reward', 'group_id'])
    .limit(1)
    .toArrow();
  if (data.numRows === 0)
    throw new HttpError({
      status: 404,
      code: 'unknown_row',
      field: 'id',
      message: `no experience '${id}' in table '${table.name}'`,
    });
  return {
    reward: Number(data.getChild('reward')!.get(0)),
    groupId: String(data.getChild('group_id')!.get(0)),
  };
}

/** The etag of an experience's reward: its exact value as text (`NaN` for an invalid one). */
export const rewardEtag = (reward: number) => String(reward);

const rewardSql = (r: number) => (Number.isFinite(r) ? String(r) : "'NaN'::double");

export function overrideReward(
  ctx: StudioContext,
  o: { table: string; id: string; etag: string; reward: number; reason: string },
): Promise<{ edit: EditRecord; version: number; etag: string }> {
  checkWritable(ctx);
  return serialized(ctx, async () => {
    const table = await openStudioTable(ctx, o.table);
    await requireExperienceTable(table);
    const before = await readExperience(table, o.id);
    if (rewardEtag(before.reward) !== o.etag)
      throw staleEdit(`experience '${o.id}'`, o.etag, rewardEtag(before.reward));
    return writeReward(ctx, table, o.id, before.reward, o.reward, 'reward', o.reason, '');
  });
}

async function writeReward(
  ctx: StudioContext,
  table: Table,
  id: string,
  from: number,
  to: number,
  kind: 'reward' | 'undo',
  reason: string,
  undoOf: string,
): Promise<{ edit: EditRecord; version: number; etag: string }> {
  const versionBefore = await table.version();
  const guard = Number.isFinite(from) ? ` AND reward = ${rewardSql(from)}` : ' AND isnan(reward)';
  const result = await table.update({
    where: `id = ${sqlString(id)}${guard}`,
    valuesSql: { reward: rewardSql(to) },
  });
  if (result.rowsUpdated !== 1) throw staleEdit(`experience '${id}'`, rewardEtag(from), 'changed');
  const edit = await EditLog.of(await studioConnection(ctx)).append({
    table: table.name,
    rowId: id,
    kind,
    user: ctx.user,
    before: JSON.stringify({ reward: Number.isFinite(from) ? from : null }),
    after: JSON.stringify({ reward: Number.isFinite(to) ? to : null }),
    reason,
    versionBefore,
    versionAfter: result.version,
    undoOf,
  });
  return { edit, version: result.version, etag: rewardEtag(to) };
}

export const PreferenceBodySchema = z.strictObject({
  table: z.string(),
  groupId: z.string().min(1),
  chosenId: z.string().min(1),
  rejectedId: z.string().min(1),
  reason: z.string().default(''),
});

export function labelPreference(
  ctx: StudioContext,
  o: z.output<typeof PreferenceBodySchema>,
): Promise<{ edit: EditRecord }> {
  checkWritable(ctx);
  return serialized(ctx, async () => {
    if (o.chosenId === o.rejectedId)
      throw new HttpError({
        status: 400,
        code: 'invalid_request',
        field: 'rejectedId',
        message: 'a pair needs two different responses',
      });
    const table = await openStudioTable(ctx, o.table);
    await requireExperienceTable(table);
    for (const [field, id] of [
      ['chosenId', o.chosenId],
      ['rejectedId', o.rejectedId],
    ] as const) {
      const exp = await readExperience(table, id).catch(() => null);
      if (!exp || exp.groupId !== o.groupId)
        throw new HttpError({
          status: 400,
          code: 'invalid_request',
          field,
          message: `experience '${id}' is not in group '${o.groupId}' of table '${o.table}'`,
          hint: 'both responses of a pair come from one group',
        });
    }
    const conn = await studioConnection(ctx);
    const label = await addPreferenceLabel(conn, { ...o, user: ctx.user });
    const edit = await EditLog.of(conn).append({
      table: o.table,
      rowId: o.groupId,
      kind: 'preference',
      user: ctx.user,
      before: 'null',
      after: JSON.stringify(label),
      reason: o.reason,
      versionBefore: await table.version(),
      versionAfter: await table.version(),
      undoOf: '',
    });
    return { edit };
  });
}

/** Undo a reward override or a preference label (task edits: task-edits.ts). */
export async function undoExperienceEdit(
  ctx: StudioContext,
  edit: EditRecord,
): Promise<{ edit: EditRecord; version: number }> {
  const table = await openStudioTable(ctx, edit.table);
  if (edit.kind === 'reward') {
    const before = z.object({ reward: z.number().nullable() }).parse(JSON.parse(edit.before));
    const after = z.object({ reward: z.number().nullable() }).parse(JSON.parse(edit.after));
    const current = await readExperience(table, edit.rowId);
    const from = after.reward ?? Number.NaN;
    if (rewardEtag(current.reward) !== rewardEtag(from))
      throw new HttpError({
        status: 409,
        code: 'stale_edit',
        field: 'editId',
        message: `experience '${edit.rowId}' changed after this edit; undo the later edits first`,
      });
    const r = await writeReward(
      ctx,
      table,
      edit.rowId,
      from,
      before.reward ?? Number.NaN,
      'undo',
      `undo reward ${edit.editId}`,
      edit.editId,
    );
    return { edit: r.edit, version: r.version };
  }
  const label = z.object({ labelId: z.string() }).parse(JSON.parse(edit.after));
  const conn = await studioConnection(ctx);
  await removePreferenceLabel(conn, label.labelId);
  const version = await table.version();
  const undo = await EditLog.of(conn).append({
    table: edit.table,
    rowId: edit.rowId,
    kind: 'undo',
    user: ctx.user,
    before: edit.after,
    after: 'null',
    reason: `undo preference ${edit.editId}`,
    versionBefore: version,
    versionAfter: version,
    undoOf: edit.editId,
  });
  return { edit: undo, version };
}
