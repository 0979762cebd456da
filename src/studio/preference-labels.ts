import { randomUUID } from 'node:crypto';
import type { Connection } from '@lancedb/lancedb';
import * as arrow from 'apache-arrow';
import { z } from 'zod';
import { type ColumnSpec, decodeRows, encodeRows, schemaOf } from '../store/arrow-codec.ts';
import { connect, openOrCreateTable } from '../store/connection.ts';
import { sqlString } from '../store/sql.ts';

/**
 * The `studio_preferences` table: preference pairs a person marked in the Studio (in one experience
 * group, response `chosen_id` is better than `rejected_id`). `winnow export --format trl-dpo` reads
 * it: a labelled group gives the labelled pair instead of the best-vs-worst-reward one.
 */
export const PREFERENCES_TABLE = 'studio_preferences';

export const PreferenceLabelSchema = z.object({
  labelId: z.string(),
  table: z.string(),
  groupId: z.string(),
  chosenId: z.string(),
  rejectedId: z.string(),
  user: z.string(),
  at: z.number(),
  reason: z.string(),
});
export type PreferenceLabel = z.infer<typeof PreferenceLabelSchema>;

const utf8 = new arrow.Utf8();
const COLUMNS: ColumnSpec<PreferenceLabel>[] = [
  { name: 'label_id', type: utf8, get: (r) => r.labelId },
  { name: 'table_name', type: utf8, get: (r) => r.table },
  { name: 'group_id', type: utf8, get: (r) => r.groupId },
  { name: 'chosen_id', type: utf8, get: (r) => r.chosenId },
  { name: 'rejected_id', type: utf8, get: (r) => r.rejectedId },
  { name: 'user', type: utf8, get: (r) => r.user },
  { name: 'at', type: new arrow.Float64(), get: (r) => r.at },
  { name: 'reason', type: utf8, get: (r) => r.reason },
];
const SCHEMA = schemaOf(COLUMNS);

export async function addPreferenceLabel(
  conn: Connection,
  label: Omit<PreferenceLabel, 'labelId' | 'at'>,
): Promise<PreferenceLabel> {
  const full = PreferenceLabelSchema.parse({ labelId: randomUUID(), at: Date.now(), ...label });
  const table = await openOrCreateTable(conn, PREFERENCES_TABLE, SCHEMA);
  // One label per group: a newer label replaces the older one (the edit log keeps both).
  await table.delete(`table_name = ${sqlString(label.table)} AND group_id = ${sqlString(label.groupId)}`);
  await table.add(encodeRows([full], COLUMNS));
  return full;
}

export async function removePreferenceLabel(conn: Connection, labelId: string): Promise<void> {
  if (!(await conn.tableNames()).includes(PREFERENCES_TABLE)) return;
  await (await conn.openTable(PREFERENCES_TABLE)).delete(`label_id = ${sqlString(labelId)}`);
}

/** Labels of one experience table (all tables when `table` is undefined); none when nothing was labelled. */
export async function readPreferenceLabels(dbDir: string, table?: string): Promise<PreferenceLabel[]> {
  const conn = await connect(dbDir);
  if (!(await conn.tableNames()).includes(PREFERENCES_TABLE)) return [];
  let q = (await conn.openTable(PREFERENCES_TABLE)).query();
  if (table !== undefined) q = q.where(`table_name = ${sqlString(table)}`);
  return decodeRows(await q.toArrow(), (c, i) =>
    PreferenceLabelSchema.parse({
      labelId: c.label_id![i],
      table: c.table_name![i],
      groupId: c.group_id![i],
      chosenId: c.chosen_id![i],
      rejectedId: c.rejected_id![i],
      user: c.user![i],
      at: c.at![i],
      reason: c.reason![i],
    }),
  );
}
