import { ConfigError, DataError } from '../core/errors.ts';
import { DATASET_FORMATS, type ReadOptions } from '../io/read-options.ts';
import { detectFormat } from '../io/reader.ts';
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
