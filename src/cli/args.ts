import { type ParseArgsConfig, parseArgs } from 'node:util';
import { UsageError } from '../core/usage-error.ts';

/**
 * parseArgs with our error type, so a bad flag is one line and exits 2. Commands defined by a
 * CommandSpec use `parseCommand` (command-spec.ts) instead, which also checks values and answers --help.
 */
export function parseCommandArgs<O extends NonNullable<ParseArgsConfig['options']>>(
  argv: string[],
  options: O,
  usage: string,
) {
  try {
    return parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (err) {
    const first = ((err as Error).message.split('\n')[0] ?? '').replace(/\. To specify a positional.*$/, '');
    throw new UsageError(`${first} (usage: ${usage})`);
  }
}

export function intOption(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  const n = value.trim() === '' ? Number.NaN : Number(value);
  if (!Number.isInteger(n)) throw new UsageError(`--${name} expects an integer, got '${value}'`);
  return n;
}
