import { ConfigError, DataError } from '../../core/errors.ts';
import { type RejectedInput, rejectedPayload } from '../../core/rejected.ts';
import type { CompiledMapping } from '../../io/mapping.ts';
import { mapRecord } from '../../io/mapping.ts';
import { checkMappingColumns } from '../../io/mapping-columns.ts';
import type { RawRecord } from '../../io/raw-record.ts';
import { DATASET_FORMATS, type ReadOptions } from '../../io/read-options.ts';
import { detectFormat, readDataset } from '../../io/reader.ts';
import type { TaskPipelineConfig } from './task-pipeline-config.ts';
import { checkInputFile } from './task-source.ts';

/** The reader options of `input:` (everything but the paths). */
export function readOptionsOf(input: TaskPipelineConfig['input']): ReadOptions {
  const { path: _path, ...read } = input;
  return read;
}

/**
 * Every input must be a readable file in a known format before anything is opened or written: a
 * failed start leaves the database as it was.
 */
export function checkInputs(files: readonly string[], config: TaskPipelineConfig, configFile?: string): void {
  const many = Array.isArray(config.input.path);
  files.forEach((file, i) => {
    const path = many ? `input.path[${i}]` : 'input.path';
    checkInputFile(file, path, configFile);
    if (config.input.format) return;
    try {
      detectFormat(file);
    } catch (err) {
      if (!(err instanceof DataError)) throw err;
      throw new ConfigError({
        path,
        ...(configFile ? { file: configFile } : {}),
        message: err.message,
        hint: `set input.format to one of: ${DATASET_FORMATS.join(', ')}`,
      });
    }
  });
}

/**
 * Check the mapping against the first batch (with records) of every input before anything is
 * opened or written: a misspelt column or template field fails the run with a ConfigError naming
 * the key, the column and the nearest real columns, instead of rejecting every row. Reads one
 * batch per file; the run reads the files again from the start.
 */
export async function checkMappingAgainstInputs(
  files: readonly string[],
  config: TaskPipelineConfig,
  mapping: CompiledMapping,
  configFile?: string,
): Promise<void> {
  for (const file of files) {
    let first: RawRecord[] = [];
    try {
      for await (const batch of readDataset(file, readOptionsOf(config.input))) {
        if (batch.records.length === 0) continue;
        first = batch.records;
        break; // leaving the loop closes the reader
      }
    } catch (err) {
      // An unreadable file is the run's to report (it fails, recorded as failed); this pass only
      // looks at columns.
      if (err instanceof DataError) continue;
      throw err;
    }
    checkMappingColumns(mapping, first, { file, ...(configFile ? { configFile } : {}) });
  }
}

/**
 * Strict mode's first pass: read and map every input row without writing, recording each row that
 * cannot be read or mapped. Returns how many there were.
 */
export async function precheckInputs(
  files: readonly string[],
  config: TaskPipelineConfig,
  mapping: CompiledMapping,
  reject: (r: RejectedInput) => void,
): Promise<number> {
  let bad = 0;
  for (const file of files) {
    const batches = readDataset(file, readOptionsOf(config.input));
    for await (const batch of batches) {
      for (const r of batch.rejected) {
        bad++;
        reject({ step: r.step, reason: r.reason, file: r.file, row: r.row, payload: r.payload });
      }
      for (const record of batch.records) {
        const mapped = mapRecord(record, mapping);
        if ('error' in mapped) {
          bad++;
          reject({
            step: 'map',
            reason: mapped.error,
            file: record.source.file,
            row: record.source.row,
            payload: rejectedPayload(record.fields),
          });
        }
      }
    }
  }
  return bad;
}
