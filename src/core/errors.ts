/**
 * Typed errors. Every error says where (file, row, config path) and what was expected,
 * so a user can fix the input without reading our source.
 */

export class WinnowError extends Error {
  override name = 'WinnowError';
}

/** A configuration value is wrong. `path` is the dotted/indexed path into the config (e.g. `steps[2].params.min`). */
export class ConfigError extends WinnowError {
  override name = 'ConfigError';
  readonly path: string;
  readonly file: string | undefined;
  readonly hint: string | undefined;
  constructor(opts: { path: string; message: string; file?: string; hint?: string }) {
    const where = opts.file ? (opts.path ? `${opts.file}: ${opts.path}` : opts.file) : opts.path || '<root>';
    super(`${where}: ${opts.message}${opts.hint ? ` (${opts.hint})` : ''}`);
    this.path = opts.path;
    this.file = opts.file;
    this.hint = opts.hint;
  }
}

/** A dataset row or file cannot be used. */
export class DataError extends WinnowError {
  override name = 'DataError';
  readonly file: string | undefined;
  readonly row: number | undefined;
  constructor(opts: { message: string; file?: string; row?: number }) {
    const where = [opts.file, opts.row !== undefined ? `row ${opts.row}` : undefined]
      .filter(Boolean)
      .join(':');
    super(where ? `${where}: ${opts.message}` : opts.message);
    this.file = opts.file;
    this.row = opts.row;
  }
}

/** Raised by `--strict` runs when any row was rejected. */
export class StrictModeError extends WinnowError {
  override name = 'StrictModeError';
}

/** A run rejected every row, or more than its configured share: a data-quality failure (exit 3, like strict mode). */
export class DataQualityError extends StrictModeError {
  override name = 'DataQualityError';
}

export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}
