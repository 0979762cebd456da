import { ConfigError, DataError, StrictModeError, WinnowError } from '../core/errors.ts';
import { UsageError } from './args.ts';
import { type CommandSpec, usageLine } from './command-spec.ts';
import { exportCommand } from './export-command.ts';
import { GC_SPEC, gcCommand } from './gc-command.ts';
import { inspectCommand } from './inspect-command.ts';
import { runCommand } from './run-command.ts';
import { RUNS_SPEC, runsCommand } from './runs-command.ts';
import { SCHEMA_SPEC, schemaCommand } from './schema-command.ts';

/**
 * Help for the commands whose parser predates command-spec.ts (their options live in their own
 * files); the newer commands' lines come from their specs.
 */
const LEGACY_HELP: Record<string, string> = {
  run: `winnow run <pipeline.yaml> [--db DIR] [--seed N] [--strict] [--json] [--quiet]
    RFT runs (kind: rft) also: [--steps N] [--run ID] [--resume] [--overwrite RUN] [--runs-dir DIR] [--run-dir DIR]
    --steps N        explorer steps (overrides lifecycle.steps)
    --run ID         name the new run, or the run --resume continues (default <name>-<n>)
    --resume         continue the latest run of this config's name (or --run ID) from its last checkpoint;
                     refused when the config differs in a key that changes results
    --overwrite RUN  delete run RUN (tables, rejected rows, folder, record) and reuse its id
    --runs-dir DIR   folder holding one folder per run (default ./.winnow/runs)
    --run-dir DIR    this run's exact folder
    --strict         task pipelines: land nothing if any input row cannot be read or mapped (exit 3)
    --quiet          no progress or report on stdout
  example: winnow run pipelines/arithmetic-bots.yaml --steps 10 --run-dir /tmp/bots`,
  inspect: `winnow inspect [--db DIR] [--table T] [--version N|TAG] [--limit N] [--json]
    tables, versions, schema, column stats and sample rows
  example: winnow inspect --table tasks --limit 3`,
  export: `winnow export --out FILE.jsonl|FILE.parquet [--db DIR] [--table T] [--version N|TAG] [--taskset NAME] [--where SQL]
    export a table
  example: winnow export --table tasks --out tasks.jsonl`,
  bench: `winnow bench <ingest|selection|learning|buffer|replay> [...]
    run a benchmark (see bench/)
  example: winnow bench selection --seeds 3`,
};

const SPECS: readonly CommandSpec[] = [SCHEMA_SPEC, RUNS_SPEC, GC_SPEC];

const HELP = `winnow — the data side of reinforcement fine-tuning

usage:
  ${LEGACY_HELP.run!.split('\n').slice(0, 2).join('\n  ')}
  ${LEGACY_HELP.inspect!.split('\n')[0]}
  ${LEGACY_HELP.export!.split('\n')[0]}
${SPECS.map((s) => `  ${usageLine(s)}`).join('\n')}
  ${LEGACY_HELP.bench!.split('\n')[0]}

winnow <command> --help shows a command's options and an example.

exit codes: 0 ok (warnings on stderr), 1 run failed, 2 bad usage or config, 3 strict mode found bad input rows`;

type Command = (argv: string[]) => Promise<number>;

const commands: Record<string, Command> = {
  run: runCommand,
  inspect: inspectCommand,
  export: exportCommand,
  schema: schemaCommand,
  runs: runsCommand,
  gc: gcCommand,
  bench: async (argv) => (await import('./bench-command.ts')).benchCommand(argv),
};

const isHelp = (a: string | undefined) => a === '--help' || a === '-h';

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
  const legacy = LEGACY_HELP[name];
  // The older parsers do not know --help: answer it here (bench passes it on after a benchmark name).
  if (legacy && (name === 'bench' ? isHelp(rest[0]) : rest.some(isHelp))) {
    process.stdout.write(`usage: ${legacy}\n`);
    return 0;
  }
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
