import { randomUUID } from 'node:crypto';
import type { Connection, Table } from '@lancedb/lancedb';
import * as arrow from 'apache-arrow';
import { z } from 'zod';
import { type ColumnSpec, decodeRows, encodeRows, schemaOf } from '../store/arrow-codec.ts';
import { openOrCreateTable } from '../store/connection.ts';
import { sqlString } from '../store/sql.ts';

/**
 * The `studio_edits` table: one row per human change made in the Studio (who, when, before/after,
 * why, and the table versions around it). Append-only — an undo is a new row naming the edit it
 * undoes — so the history itself is never rewritten, and `winnow inspect studio_edits` shows it.
 */
export const EDITS_TABLE = 'studio_edits';

export const EDIT_KINDS = ['edit', 'accept', 'reject', 'reward', 'preference', 'undo'] as const;

export const EditRecordSchema = z.object({
  editId: z.string(),
  table: z.string(),
  rowId: z.string(),
  kind: z.enum(EDIT_KINDS),
  user: z.string(),
  at: z.number(),
  /** JSON of the values before (null: the row did not exist). */
  before: z.string(),
  after: z.string(),
  reason: z.string(),
  versionBefore: z.number().int(),
  versionAfter: z.number().int(),
  /** The edit this one undoes ('' for a plain edit). */
  undoOf: z.string(),
});
export type EditRecord = z.infer<typeof EditRecordSchema>;

const utf8 = new arrow.Utf8();
const COLUMNS: ColumnSpec<EditRecord>[] = [
  { name: 'edit_id', type: utf8, get: (r) => r.editId },
  { name: 'table_name', type: utf8, get: (r) => r.table },
  { name: 'row_id', type: utf8, get: (r) => r.rowId },
  { name: 'kind', type: utf8, get: (r) => r.kind },
  { name: 'user', type: utf8, get: (r) => r.user },
  { name: 'at', type: new arrow.Float64(), get: (r) => r.at },
  { name: 'before', type: utf8, get: (r) => r.before },
  { name: 'after', type: utf8, get: (r) => r.after },
  { name: 'reason', type: utf8, get: (r) => r.reason },
  { name: 'version_before', type: new arrow.Int32(), get: (r) => r.versionBefore },
  { name: 'version_after', type: new arrow.Int32(), get: (r) => r.versionAfter },
  { name: 'undo_of', type: utf8, get: (r) => r.undoOf },
];
const SCHEMA = schemaOf(COLUMNS);

export class EditLog {
  private readonly conn: Connection;
  private constructor(conn: Connection) {
    this.conn = conn;
  }

  static of(conn: Connection): EditLog {
    return new EditLog(conn);
  }

  private async existing(): Promise<Table | null> {
    return (await this.conn.tableNames()).includes(EDITS_TABLE) ? this.conn.openTable(EDITS_TABLE) : null;
  }

  async append(record: Omit<EditRecord, 'editId' | 'at'> & { at?: number }): Promise<EditRecord> {
    const full = EditRecordSchema.parse({ editId: randomUUID(), at: Date.now(), ...record });
    const table = await openOrCreateTable(this.conn, EDITS_TABLE, SCHEMA);
    await table.add(encodeRows([full], COLUMNS));
    return full;
  }

  /** Edits matching a filter, oldest first (none when nothing was ever edited). */
  async list(filter: { table?: string; rowId?: string; editId?: string } = {}): Promise<EditRecord[]> {
    const table = await this.existing();
    if (!table) return [];
    const parts: string[] = [];
    if (filter.table !== undefined) parts.push(`table_name = ${sqlString(filter.table)}`);
    if (filter.rowId !== undefined) parts.push(`row_id = ${sqlString(filter.rowId)}`);
    if (filter.editId !== undefined) parts.push(`edit_id = ${sqlString(filter.editId)}`);
    let q = table.query();
    if (parts.length > 0) q = q.where(parts.join(' AND '));
    return decodeRows(await q.toArrow(), (c, i) =>
      EditRecordSchema.parse({
        editId: c.edit_id![i],
        table: c.table_name![i],
        rowId: c.row_id![i],
        kind: c.kind![i],
        user: c.user![i],
        at: c.at![i],
        before: c.before![i],
        after: c.after![i],
        reason: c.reason![i],
        versionBefore: c.version_before![i],
        versionAfter: c.version_after![i],
        undoOf: c.undo_of![i],
      }),
    ).sort((a, b) => a.at - b.at);
  }

  async undoneBy(editId: string): Promise<EditRecord | undefined> {
    const table = await this.existing();
    if (!table) return undefined;
    return (await this.list()).find((e) => e.undoOf === editId);
  }
}
