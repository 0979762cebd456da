import { engineErrorLine, isEngineMessage, storageFaultLine, storageFaultOf } from '../core/engine-error.ts';
import { ConfigError, StrictModeError, WinnowError } from '../core/errors.ts';
import { UsageError } from '../core/usage-error.ts';
import {
  asksForHelp,
  type CommandGroup,
  type CommandSpec,
  firstSentence,
  groupHelpText,
  helpText,
  unknownName,
  usageLine,
} from './command-spec.ts';
import { COMMANDS, type CommandEntry, commandSpecs } from './commands.ts';
import { packageVersion } from './package-version.ts';

const isGroup = (s: CommandSpec | CommandGroup): s is CommandGroup => 'subcommands' in s;

export const GLOBAL_OPTIONS: ReadonlyArray<readonly [string, string]> = [
  ['--debug', 'print the stack trace of an unexpected error (anywhere on the line; or WINNOW_DEBUG=1)'],
  ['--version', 'print the version'],
  ['-h, --help', 'print this help; winnow help <command> (or winnow <command> --help) for one command'],
];

export const EXIT_CODES: ReadonlyArray<readonly [number, string]> = [
  [0, 'ok (also --help, and winnow gc without --yes); warnings go to stderr'],
  [1, 'the run failed (unreadable file, database error, unexpected error)'],
  [2, 'bad usage or bad config: an unknown command, option or key, a bad value, a flag that does not apply'],
  [3, 'a data-quality failure: strict mode found bad input rows, or too many rows were rejected'],
];

export async function globalHelp(): Promise<string> {
  const lines: string[] = [];
  for (const c of await commandSpecs()) {
    if (isGroup(c.spec)) {
      lines.push(`  winnow ${c.name} <name> [options]`, `      ${firstSentence(c.spec.summary)}`);
      for (const s of c.spec.subcommands) lines.push(`      ${usageLine(s)}`);
    } else lines.push(`  ${usageLine(c.spec)}`, `      ${firstSentence(c.spec.summary)}`);
  }
  const width = Math.max(...GLOBAL_OPTIONS.map(([f]) => f.length));
  return [
    'winnow — the data side of reinforcement fine-tuning',
    '',
    'usage:',
    ...lines,
    '',
    'global options:',
    ...GLOBAL_OPTIONS.map(([f, d]) => `  ${f.padEnd(width)}  ${d}`),
    '',
    'exit codes:',
    ...EXIT_CODES.map(([c, d]) => `  ${c}  ${d}`),
  ].join('\n');
}

function findCommand(name: string): CommandEntry {
  const entry = COMMANDS.find((c) => c.name === name);
  if (!entry)
    throw new UsageError(
      unknownName(
        'command',
        name,
        COMMANDS.map((c) => c.name),
        `commands: ${COMMANDS.map((c) => c.name).join(', ')}`,
      ),
    );
  return entry;
}

/** The help of `winnow <path…>` (`['run']`, `['bench']`, `['bench', 'ingest']`); the same text --help prints. */
export async function helpFor(path: readonly string[]): Promise<string> {
  const [name, sub, ...extra] = path;
  if (name === undefined) return globalHelp();
  const entry = findCommand(name);
  const spec = await entry.spec();
  if (!isGroup(spec)) {
    if (sub !== undefined) throw new UsageError(`winnow ${name} has no subcommands, got '${sub}' after it`);
    return helpText(spec);
  }
  if (sub === undefined) return groupHelpText(spec);
  if (extra.length > 0)
    throw new UsageError(`winnow help ${name} ${sub} takes nothing more, got '${extra[0]}'`);
  return helpText(await entry.member!(sub));
}

/** `--debug` may stand anywhere before `--`; it is taken out before the command parses its flags. */
function takeDebugFlag(argv: readonly string[]): { argv: string[]; debug: boolean } {
  const end = argv.indexOf('--');
  const head = end === -1 ? [...argv] : argv.slice(0, end);
  const tail = end === -1 ? [] : argv.slice(end);
  const kept = head.filter((a) => a !== '--debug');
  return { argv: [...kept, ...tail], debug: kept.length !== head.length };
}

const debugFromEnv = () => ['1', 'true', 'yes'].includes((process.env.WINNOW_DEBUG ?? '').toLowerCase());

export async function main(rawArgv: string[]): Promise<number> {
  const { argv, debug: debugFlag } = takeDebugFlag(rawArgv);
  const debug = debugFlag || debugFromEnv();
  try {
    return await dispatch(argv);
  } catch (err) {
    return reportError(err, debug);
  }
}

async function dispatch(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined) {
    process.stdout.write(`${await globalHelp()}\n`);
    return 2;
  }
  if (name === '--help' || name === '-h') {
    process.stdout.write(`${await globalHelp()}\n`);
    return 0;
  }
  if (name === 'help') {
    process.stdout.write(`${await helpFor(rest)}\n`);
    return 0;
  }
  if (name === '--version') {
    process.stdout.write(`winnow ${packageVersion()}\n`);
    return 0;
  }
  const entry = findCommand(name);
  if (asksForHelp(rest)) {
    // `winnow bench ingest --help`: the benchmark's help; `winnow bench --help`: the list.
    const sub =
      entry.member !== undefined && rest[0] !== undefined && !rest[0].startsWith('-') ? [rest[0]] : [];
    process.stdout.write(`${await helpFor([name, ...sub])}\n`);
    return 0;
  }
  return (await entry.run())(rest);
}

/** The exit code an error stands for (the table in docs/cli.md). */
export function exitCodeOf(err: unknown): number {
  if (err instanceof StrictModeError) return 3;
  // A Winnow error may carry its own code (data-quality failures: 3).
  const own = err instanceof WinnowError ? (err as { exitCode?: unknown }).exitCode : undefined;
  if (typeof own === 'number' && Number.isInteger(own) && own > 0) return own;
  if (err instanceof UsageError || err instanceof ConfigError) return 2;
  return 1;
}

const oneLine = (s: string) =>
  s
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '')
    .join(' ');

/**
 * Every error is one line on stderr: our own errors say what and where (and a hint); anything
 * else is a bug or an engine failure, shown by its first line — its stack only with --debug.
 */
export function reportError(err: unknown, debug = false): number {
  const code = exitCodeOf(err);
  // A bad command line is never a bug: its stack would say nothing, even with --debug.
  if (debug && !(err instanceof UsageError)) {
    process.stderr.write(`error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    return code;
  }
  if (err instanceof WinnowError) {
    process.stderr.write(`error: ${oneLine(err.message)}\n`);
    return code;
  }
  // A full disk or a permission is the machine's state, not a bug: say so, and what to do.
  const fault = storageFaultOf(err);
  if (fault) {
    process.stderr.write(`error: ${storageFaultLine(err, fault)}\n`);
    return code;
  }
  // Engine (Rust) messages lose their source paths and debug structures here too.
  const first = (err instanceof Error ? err.message : String(err)).split('\n')[0]!.trim();
  const plain = first.length > 300 ? `${first.slice(0, 300)}…` : first || 'unexpected failure';
  const text = isEngineMessage(err) ? engineErrorLine(err) : plain;
  const kind = err instanceof Error && err.name !== 'Error' ? `${err.name}: ` : '';
  process.stderr.write(`error: ${kind}${text} (run with --debug for the stack trace)\n`);
  return code;
}
