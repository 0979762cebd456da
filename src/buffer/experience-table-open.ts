import type { Connection, Table } from '@lancedb/lancedb';
import * as arrow from 'apache-arrow';
import { DataError } from '../core/errors.ts';
import { openListedTable } from './connection.ts';
import { EXPERIENCE_SCHEMA } from './experience-table.ts';

/** Schema metadata marking a table created with Lance stable row ids. */
const STABLE_ROW_IDS_KEY = 'winnow:stable_row_ids';
const REQUIRED_COLUMNS = EXPERIENCE_SCHEMA.fields.map((f) => f.name);

/** Open an experience table, creating it with stable row ids (so rows can be fetched by id after compaction). */
export async function openExperienceTable(
  conn: Connection,
  name: string,
): Promise<{ table: Table; stable: boolean }> {
  const names = await conn.tableNames();
  const existing = names.includes(name) ? await openListedTable(conn, name) : null;
  if (existing) {
    const schema = await existing.schema();
    const have = new Set(schema.fields.map((f) => f.name));
    const missing = REQUIRED_COLUMNS.filter((c) => !have.has(c));
    if (missing.length > 0)
      throw new DataError({
        file: name,
        message: `table '${name}' is not an experience table: missing column(s) ${missing.join(', ')}`,
      });
    return { table: existing, stable: schema.metadata.get(STABLE_ROW_IDS_KEY) === 'true' };
  }
  const schema = new arrow.Schema(EXPERIENCE_SCHEMA.fields, new Map([[STABLE_ROW_IDS_KEY, 'true']]));
  try {
    const table = await conn.createEmptyTable(name, schema, {
      mode: 'create',
      existOk: true,
      storageOptions: { new_table_enable_stable_row_ids: 'true' },
    });
    const meta = (await table.schema()).metadata;
    return { table, stable: meta.get(STABLE_ROW_IDS_KEY) === 'true' };
  } catch (err) {
    if ((await conn.tableNames()).includes(name)) return openExperienceTable(conn, name);
    throw err;
  }
}
