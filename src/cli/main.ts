import { ConfigError, DataError, StrictModeError, WinnowError } from '../core/errors.ts';
import { UsageError } from './args.ts';
import { exportCommand } from './export-command.ts';
import { inspectCommand } from './inspect-command.ts';
import { runCommand } from './run-command.ts';
import { schemaCommand } from './schema-command.ts';

const HELP = `winnow — the data side of reinforcement fine-tuning

usage:
  winnow run <pipeline.yaml> [--db DIR] [--seed N] [--strict] [--json]   run a pipeline
  winnow inspect [--db DIR] [--table T] [--version V] [--json]          tables, versions, schema, stats, samples
  winnow export --out FILE.jsonl|.parquet [--db DIR] [--table T]        export a table
  winnow schema                                                        JSON Schema of pipeline configs
  winnow bench <ingest|selection> [...]                                run a benchmark

exit codes: 0 ok (warnings on stderr), 1 failure, 2 bad usage or config, 3 strict mode found bad input rows`;

type Command = (argv: string[]) => Promise<number>;

const commands: Record<string, Command> = {
  run: runCommand,
  inspect: inspectCommand,
  export: exportCommand,
  schema: schemaCommand,
  bench: async (argv) => (await import('./bench-command.ts')).benchCommand(argv),
};

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(`${HELP}\n`);
    return name ? 0 : 2;
  }
  if (name === '--version') {
    process.stdout.write('winnow 0.1.0\n');
    return 0;
  }
  const cmd = commands[name];
  if (!cmd) {
    process.stderr.write(`unknown command '${name}'\n\n${HELP}\n`);
    return 2;
  }
  try {
    return await cmd(rest);
  } catch (err) {
    return reportError(err);
  }
}

function reportError(err: unknown): number {
  if (err instanceof StrictModeError) {
    process.stderr.write(`error: ${err.message}\n`);
    return 3;
  }
  if (err instanceof UsageError || err instanceof ConfigError) {
    process.stderr.write(`error: ${err.message}\n`);
    return 2;
  }
  if (err instanceof DataError || err instanceof WinnowError) {
    process.stderr.write(`error: ${err.message}\n`);
    return 1;
  }
  process.stderr.write(`error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  return 1;
}
