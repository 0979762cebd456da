import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { ConfigError } from '../../core/errors.ts';
import type { RejectedInput } from '../../core/rejected.ts';
import { closestNames } from '../../core/suggest.ts';
import type { Task } from '../../core/task.ts';
import { compileMapping, mapRecord } from '../../io/mapping.ts';
import { checkMappingColumns } from '../../io/mapping-columns.ts';
import { readDataset } from '../../io/reader.ts';
import { compilePredicate } from '../../operators/predicate.ts';
import { badRows, describeBadRow } from '../../store/bad-cell.ts';
import { connect } from '../../store/connection.ts';
import { TaskStore } from '../../store/task-store.ts';
import type { TaskSource } from '../run/rft-config.ts';

/**
 * Load the tasks of a run: from a dataset file (read and mapped like a task pipeline's input, bad
 * rows reported for the `rejected` table) or from a task table, optionally as of a version or tag.
 */
export async function loadTaskSource(
  source: TaskSource,
  opts: { baseDir: string; dbDir: string; step: string; path?: string; file?: string | undefined },
): Promise<{ tasks: Task[]; rejected: RejectedInput[] }> {
  const rejected: RejectedInput[] = [];
  const keep = source.filter ? compilePredicate(source.filter) : () => true;
  if ('path' in source) {
    const file = resolve(opts.baseDir, source.path);
    checkInputFile(file, `${opts.path ?? opts.step}.path`, opts.file);
    const mapping = compileMapping(source.mapping);
    const tasks: Task[] = [];
    let checked = false;
    for await (const batch of readDataset(file, source.read ?? {})) {
      // A mapping naming a column the file lacks is a config error, not a file of bad rows.
      if (!checked && batch.records.length > 0) {
        checkMappingColumns(mapping, batch.records, {
          file,
          path: `${opts.path ?? opts.step}.mapping`,
          configFile: opts.file,
        });
        checked = true;
      }
      for (const r of batch.rejected)
        rejected.push({
          step: `${opts.step}:${r.step}`,
          reason: r.reason,
          file: r.file,
          row: r.row,
          payload: r.payload,
        });
      for (const record of batch.records) {
        const m = mapRecord(record, mapping);
        if ('task' in m) {
          if (keep(m.task)) tasks.push(m.task);
        } else
          rejected.push({
            step: `${opts.step}:map`,
            reason: m.error,
            file: record.source.file,
            row: record.source.row,
            payload: JSON.stringify(record.fields),
          });
        if (source.limit !== undefined && tasks.length >= source.limit) return { tasks, rejected };
      }
    }
    return { tasks, rejected };
  }
  // Reading never creates: a missing database or table is a config error, not a new empty table.
  const names = existsSync(opts.dbDir) ? await (await connect(opts.dbDir)).tableNames() : [];
  if (!names.includes(source.table))
    throw new ConfigError({
      path: `${opts.path ?? opts.step}.table`,
      ...(opts.file ? { file: opts.file } : {}),
      message: `table '${source.table}' does not exist in ${resolve(opts.dbDir)}`,
      hint:
        names.length > 0 ? `tables there: ${names.join(', ')}` : 'land a task set first with a task pipeline',
    });
  const store = await TaskStore.open(opts.dbDir, source.table);
  const { tasks, bad } = await store.readChecked({
    ...(source.taskset ? { taskset: source.taskset } : {}),
    ...(source.version !== undefined ? { version: source.version } : {}),
    ...(source.limit !== undefined ? { limit: source.limit } : {}),
  });
  // Rows another tool wrote with malformed cells are quarantined, not fatal: one rejected row each.
  for (const cells of badRows(bad))
    rejected.push({ step: `${opts.step}:decode`, reason: describeBadRow(cells), rowId: cells[0]!.id });
  // Table order is not guaranteed across compactions: sort by id so runs are reproducible.
  const kept = tasks.filter(keep);
  kept.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return { tasks: kept, rejected };
}

/** A dataset path a config names must be a readable file: say which key, and the nearest names there. */
export function checkInputFile(file: string, path: string, configFile?: string): void {
  if (existsSync(file) && statSync(file).isFile()) return;
  const where = configFile ? { file: configFile } : {};
  if (existsSync(file))
    throw new ConfigError({ path, ...where, message: `${file} is a directory, expected a dataset file` });
  const dir = dirname(file);
  const near = existsSync(dir) ? closestNames(basename(file), readdirSync(dir)) : [];
  throw new ConfigError({
    path,
    ...where,
    message: `no such file: ${file}`,
    hint:
      near.length > 0
        ? `did you mean ${near.map((n) => `'${n}'`).join(', ')}?`
        : 'paths are relative to the config file',
  });
}
