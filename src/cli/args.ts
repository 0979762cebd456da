import { type ParseArgsConfig, parseArgs } from 'node:util';
import { WinnowError } from '../core/errors.ts';

export class UsageError extends WinnowError {
  override name = 'UsageError';
}

/** parseArgs with our error type, so a bad flag prints usage and exits 2. */
export function parseCommandArgs<O extends NonNullable<ParseArgsConfig['options']>>(
  argv: string[],
  options: O,
  usage: string,
) {
  try {
    return parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError(`${(err as Error).message}\n\nusage: ${usage}`);
  }
}

export function intOption(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n)) throw new UsageError(`--${name} expects an integer, got '${value}'`);
  return n;
}
