import { basename } from 'node:path';
import { ConfigError } from '../core/errors.ts';
import { closestNames } from '../core/suggest.ts';
import { compilePath, MISSING } from './field-path.ts';
import type { CompiledMapping } from './mapping.ts';
import type { RequiredColumn } from './mapping-refs.ts';
import type { RawRecord } from './raw-record.ts';

/** Top-level columns of a batch, in order of first appearance. */
function columnsIn(records: readonly RawRecord[]): string[] {
  const seen = new Set<string>();
  for (const r of records) for (const k of Object.keys(r.fields)) seen.add(k);
  return [...seen];
}

/** Names a misspelt path could have meant: top-level columns, or for `a.b` the keys found under `a`. */
function candidatesFor(column: string, records: readonly RawRecord[], top: readonly string[]): string[] {
  const dot = column.indexOf('.');
  if (dot === -1 || top.includes(column)) return [...top];
  const parent = column.slice(0, dot);
  const nested = new Set<string>();
  for (const r of records) {
    const v = r.fields[parent];
    if (v !== null && typeof v === 'object' && !Array.isArray(v))
      for (const k of Object.keys(v)) nested.add(`${parent}.${k}`);
  }
  return nested.size > 0 ? [...nested] : [...top];
}

function listed(names: readonly string[]): string {
  const shown = names.slice(0, 20).join(', ');
  return names.length > 20 ? `${shown}, … ${names.length - 20} more` : shown;
}

/** The required columns that no record of the batch has. */
export function missingColumns(mapping: CompiledMapping, records: readonly RawRecord[]): RequiredColumn[] {
  return mapping.required.filter(({ column }) => {
    const get = compilePath(column);
    return records.every((r) => get(r.fields) === MISSING);
  });
}

/**
 * A mapping that names a column no row of a file's first batch has is a config mistake (a typo, or
 * the wrong file), not thousands of bad rows: fail before anything is written, naming the mapping
 * key, the column, the nearest real columns and the columns the file has. Columns only some rows
 * have are marked optional (`hint?`, `{hint?}`). A batch without records proves nothing and passes.
 */
export function checkMappingColumns(
  mapping: CompiledMapping,
  records: readonly RawRecord[],
  where: { file: string; path?: string; configFile?: string | undefined },
): void {
  if (records.length === 0) return;
  const missing = missingColumns(mapping, records);
  const first = missing[0];
  if (first === undefined) return;
  const top = columnsIn(records);
  const near = closestNames(first.column, candidatesFor(first.column, records, top));
  const what = first.template ? `template field '${first.column}'` : `column '${first.column}'`;
  const more =
    missing.length > 1
      ? `; also missing: ${missing
          .slice(1)
          .map((m) => `${m.key} '${m.column}'`)
          .join(', ')}`
      : '';
  const hint = [
    near.length > 0 ? `did you mean ${near.map((n) => `'${n}'`).join(', ')}?` : undefined,
    `the file has: ${listed(top)}`,
    near.length > 0
      ? undefined
      : `mark one only some rows have optional: ${first.template ? `{${first.column}?}` : `'${first.column}?'`}`,
  ]
    .filter(Boolean)
    .join('; ');
  throw new ConfigError({
    path: `${where.path ?? 'mapping'}.${first.key}`,
    ...(where.configFile ? { file: where.configFile } : {}),
    message: `${what} is in no row of the first batch of ${basename(where.file)}${more}`,
    hint,
  });
}
