import { parseArgs } from 'node:util';
import { closestNames, editDistance } from '../core/suggest.ts';
import { UsageError } from '../core/usage-error.ts';

/** One flag of a command: how it parses, how its value is checked and how `--help` describes it. */
export interface OptionSpec {
  /**
   * boolean: a switch; string: free text (never empty); int / number: checked and converted;
   * list: comma-separated items, each checked against `choices` when given.
   */
  type: 'string' | 'boolean' | 'int' | 'number' | 'list';
  /** Placeholder shown after a valued flag (`--db DIR`). */
  value?: string;
  short?: string;
  description: string;
  /** Smallest and largest accepted value (int, number). */
  min?: number;
  max?: number;
  /** The accepted values (string: the value; list: each item). */
  choices?: readonly string[];
  /** The value when the flag is absent; shown in `--help`. */
  default?: string | number;
  /** The flag only means something for this kind of input (`rft`): `refuseInapplicable` refuses it elsewhere. */
  only?: string;
}

/**
 * A command's whole interface in one place: the parser, `--help`, `winnow help` and docs/cli.md all
 * read it, so none of them can drift from what the command accepts.
 */
/** `--db DIR` for the commands that read a database (the run command's own says more). */
export const DB_OPTION = {
  type: 'string',
  value: 'DIR',
  description: 'database folder (default: .winnow/db in the project folder, or $WINNOW_DB)',
} as const satisfies OptionSpec;

/** `--run`, `--taskset`, `--where`: the row filters `inspect` and `export` share (docs/cli-filters.md). */
export const ROW_FILTER_OPTIONS = {
  run: { type: 'string', value: 'RUN', description: "only this run's rows (RFT runs: its buffer table)" },
  taskset: { type: 'string', value: 'NAME', description: 'only rows of this task set' },
  where: { type: 'string', value: 'EXPR', description: 'only rows matching EXPR (see docs/cli-filters.md)' },
} as const satisfies Record<string, OptionSpec>;

export interface CommandSpec<O extends Record<string, OptionSpec> = Record<string, OptionSpec>> {
  /** As typed after `winnow` (`gc`, `bench ingest`). */
  name: string;
  /** Positional arguments as the usage line shows them (`RUN [RUN…]`). */
  args: string;
  /** How many positional arguments the parser accepts (unchecked when absent: the command checks). */
  maxArgs?: number;
  summary: string;
  options: O;
  /** More lines for `--help`, after the options. */
  notes?: readonly string[];
  examples: readonly string[];
}

/** A command made of subcommands (`winnow bench <name>`). */
export interface CommandGroup {
  name: string;
  summary: string;
  subcommands: readonly CommandSpec[];
  examples: readonly string[];
}

type Parsed<S extends OptionSpec> = S['type'] extends 'int' | 'number'
  ? number
  : S['type'] extends 'list'
    ? string[]
    : string;

export type OptionValues<O extends Record<string, OptionSpec>> = {
  [K in keyof O]: O[K]['type'] extends 'boolean'
    ? boolean
    : O[K] extends { default: string | number }
      ? Parsed<O[K]>
      : Parsed<O[K]> | undefined;
};

const placeholder = (o: OptionSpec) =>
  o.value ?? (o.type === 'int' || o.type === 'number' ? 'N' : o.type === 'list' ? 'A,B' : 'VALUE');
/** `--db DIR`, `--json`: a flag as usage lines, --help and docs/cli.md show it. */
export const flagText = (name: string, o: OptionSpec) =>
  o.type === 'boolean' ? `--${name}` : `--${name} ${placeholder(o)}`;
const flag = flagText;
const helpHint = (name: string) => `winnow ${name} --help lists them`;

/** `winnow gc RUN [RUN…] [--db DIR] [--yes]` */
export function usageLine(spec: CommandSpec): string {
  const opts = Object.entries(spec.options).map(([n, o]) => `[${flag(n, o)}]`);
  return ['winnow', spec.name, spec.args, ...opts].filter((s) => s !== '').join(' ');
}

/** The help column of one option: its description, accepted values, default and applicability. */
export function optionHelp(o: OptionSpec): string {
  const extras = [
    o.choices && o.type !== 'list' ? `one of ${o.choices.join(', ')}` : undefined,
    o.choices && o.type === 'list' ? `any of ${o.choices.join(', ')}` : undefined,
    rangeText(o),
    o.default !== undefined ? `default ${o.default}` : undefined,
    o.only ? `only for kind: ${o.only}` : undefined,
  ].filter((x): x is string => x !== undefined);
  return extras.length > 0 ? `${o.description} (${extras.join('; ')})` : o.description;
}

function rangeText(o: OptionSpec): string | undefined {
  if (o.min !== undefined && o.max !== undefined) return `${o.min}–${o.max}`;
  if (o.min !== undefined) return `≥ ${o.min}`;
  if (o.max !== undefined) return `≤ ${o.max}`;
  return undefined;
}

export function helpText(spec: CommandSpec): string {
  const rows = Object.entries(spec.options).map(([n, o]) => [
    `${o.short ? `-${o.short}, ` : ''}${flag(n, o)}`,
    optionHelp(o),
  ]);
  rows.push(['-h, --help', 'print this help']);
  const width = Math.max(...rows.map(([l]) => l!.length));
  return [
    spec.summary,
    '',
    `usage: ${usageLine(spec)}`,
    '',
    'options:',
    ...rows.map(([l, d]) => `  ${l!.padEnd(width)}  ${d}`),
    ...(spec.notes && spec.notes.length > 0 ? ['', ...spec.notes] : []),
    '',
    spec.examples.length > 1 ? 'examples:' : 'example:',
    ...spec.examples.map((e) => `  ${e}`),
  ].join('\n');
}

/** The first sentence of a summary, for one-line listings. */
export const firstSentence = (s: string) => s.split(/(?<=\.)\s/)[0]!;

export function groupHelpText(group: CommandGroup): string {
  const width = Math.max(...group.subcommands.map((s) => s.name.length));
  return [
    group.summary,
    '',
    `usage: winnow ${group.name} <name> [options]   (winnow ${group.name} <name> --help for its options)`,
    '',
    `${group.name === 'bench' ? 'benchmarks' : 'subcommands'}:`,
    ...group.subcommands.map((s) => `  ${s.name.padEnd(width)}  ${firstSentence(s.summary)}`),
    '',
    group.examples.length > 1 ? 'examples:' : 'example:',
    ...group.examples.map((e) => `  ${e}`),
  ].join('\n');
}

/** `unknown X 'nme'; did you mean 'name'? (fallback)` — the one shape of every "unknown name" error. */
export function unknownName(what: string, name: string, known: readonly string[], fallback: string): string {
  // Only the nearest of the close names: `rn` suggests 'run', not also 'gc'.
  const close = closestNames(name, known);
  const best = Math.min(...close.map((k) => editDistance(name.toLowerCase(), k.toLowerCase())));
  const near = close.filter((k, i) => i === 0 || editDistance(name.toLowerCase(), k.toLowerCase()) === best);
  const hint = near.length > 0 ? `did you mean ${near.map((n) => `'${n}'`).join(' or ')}?` : fallback;
  return `unknown ${what} '${name}'; ${hint}`;
}

/**
 * `--db -x` would be read by parseArgs as a missing value; a negative number after a valued flag is
 * meant as its value (`--limit -1`), so it is joined to the flag and the range check reports it.
 */
function joinNegativeNumbers(argv: readonly string[], valued: ReadonlySet<string>): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const next = argv[i + 1];
    if (a.startsWith('--') && valued.has(a.slice(2)) && next !== undefined && /^-\d|^-\.\d/.test(next)) {
      out.push(`${a}=${next}`);
      i++;
    } else out.push(a);
  }
  return out;
}

/** parseArgs' own messages span lines and advise about `--`; say it in one line with the nearest flag. */
function parseError(spec: CommandSpec, err: unknown): UsageError {
  const message = err instanceof Error ? err.message : String(err);
  const flags = Object.keys(spec.options).concat('help');
  const unknown = /Unknown option '([^']+)'/.exec(message);
  if (unknown) {
    const name = unknown[1]!.replace(/^-+/, '');
    const near = closestNames(name, flags).map((n) => `'--${n}'`);
    const hint = near.length > 0 ? `did you mean ${near.join(' or ')}?` : helpHint(spec.name);
    return new UsageError(`unknown option '${unknown[1]}' for winnow ${spec.name}; ${hint}`);
  }
  const missing = /Option '(?:-\w, )?--([\w-]+)[^']*' argument (missing|is ambiguous)/.exec(message);
  if (missing) {
    const o = spec.options[missing[1]!];
    return new UsageError(`--${missing[1]} expects a value${o ? ` (${placeholder(o)})` : ''}`);
  }
  const noValue = /Option '(?:-\w, )?--([\w-]+)' does not take an argument/.exec(message);
  if (noValue) return new UsageError(`--${noValue[1]} is a switch and takes no value`);
  const unexpected = /Unexpected argument '([^']*)'/.exec(message);
  if (unexpected) return new UsageError(`winnow ${spec.name} takes no arguments, got '${unexpected[1]}'`);
  return new UsageError(`${message.split('\n')[0]} (${helpHint(spec.name)})`);
}

/** Check and convert one flag's text by its spec; a bad value is a one-line UsageError. */
export function convertOption(name: string, o: OptionSpec, text: string): string | number | string[] {
  const expected = () => {
    const range = rangeText(o);
    const noun = o.type === 'int' ? 'an integer' : 'a number';
    return `--${name} expects ${noun}${range ? ` ${range}` : ''}, got '${text}'`;
  };
  switch (o.type) {
    case 'int':
    case 'number': {
      const n = text.trim() === '' ? Number.NaN : Number(text);
      if (!Number.isFinite(n) || (o.type === 'int' && !Number.isInteger(n))) throw new UsageError(expected());
      if ((o.min !== undefined && n < o.min) || (o.max !== undefined && n > o.max))
        throw new UsageError(expected());
      return n;
    }
    case 'list': {
      const items = text.split(',').map((s) => s.trim());
      if (items.some((s) => s === ''))
        throw new UsageError(`--${name} expects a comma-separated list without empty items, got '${text}'`);
      if (o.choices)
        for (const item of items)
          if (!o.choices.includes(item))
            throw new UsageError(
              `--${name}: ${unknownName('item', item, o.choices, `expected any of ${o.choices.join(', ')}`)}`,
            );
      return items;
    }
    default: {
      if (text === '') throw new UsageError(`--${name} expects a value (${placeholder(o)}), got ''`);
      if (o.choices && !o.choices.includes(text))
        throw new UsageError(
          `--${name}: ${unknownName('value', text, o.choices, `expected one of ${o.choices.join(', ')}`)}`,
        );
      return text;
    }
  }
}

/** Whether `argv` asks for help (before any `--`). */
export function asksForHelp(argv: readonly string[]): boolean {
  const end = argv.indexOf('--');
  return (end === -1 ? argv : argv.slice(0, end)).some((a) => a === '--help' || a === '-h');
}

/**
 * Parse `argv` by `spec`: every value is checked (type, range, choices) and converted, defaults
 * filled in. `--help` prints the help and returns null (the command exits 0); a bad flag is a
 * one-line UsageError (exit 2). `given` names the flags the command line set.
 */
export function parseCommand<O extends Record<string, OptionSpec>>(
  spec: CommandSpec<O>,
  argv: string[],
): { values: OptionValues<O>; positionals: string[]; given: ReadonlySet<string> } | null {
  if (asksForHelp(argv)) {
    process.stdout.write(`${helpText(spec)}\n`);
    return null;
  }
  const options: Record<string, { type: 'string' | 'boolean'; short?: string }> = {
    help: { type: 'boolean', short: 'h' },
  };
  const valued = new Set<string>();
  for (const [n, o] of Object.entries(spec.options)) {
    options[n] = {
      type: o.type === 'boolean' ? 'boolean' : 'string',
      ...(o.short ? { short: o.short } : {}),
    };
    if (o.type !== 'boolean') valued.add(n);
  }
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: joinNegativeNumbers(argv, valued),
      options,
      allowPositionals: true,
      strict: true,
    });
  } catch (err) {
    throw parseError(spec, err);
  }
  if (spec.maxArgs !== undefined && parsed.positionals.length > spec.maxArgs) {
    const got = parsed.positionals.map((p) => `'${p}'`).join(' ');
    throw new UsageError(
      spec.maxArgs === 0
        ? `winnow ${spec.name} takes no arguments, got ${got}`
        : `winnow ${spec.name} takes at most ${spec.maxArgs} argument(s) (${spec.args}), got ${parsed.positionals.length}: ${got}`,
    );
  }
  const values: Record<string, unknown> = {};
  const given = new Set<string>();
  for (const [n, o] of Object.entries(spec.options)) {
    const raw = parsed.values[n];
    if (raw !== undefined) given.add(n);
    if (o.type === 'boolean') values[n] = raw === true;
    else if (typeof raw === 'string') values[n] = convertOption(n, o, raw);
    else values[n] = o.default === undefined ? undefined : convertOption(n, o, String(o.default));
  }
  return { values: values as OptionValues<O>, positionals: parsed.positionals, given };
}

/**
 * Refuse flags that do not apply to this kind of input (`--steps` on a task pipeline): the one
 * place that rule lives. `describe` names the input in the message (`x.yaml is a task pipeline`).
 */
export function refuseInapplicable(
  spec: CommandSpec,
  given: ReadonlySet<string>,
  kind: string,
  describe: string,
): void {
  for (const name of given) {
    const only = spec.options[name]?.only;
    if (only !== undefined && only !== kind)
      throw new UsageError(`--${name} applies only to kind: ${only}; ${describe}`);
  }
}
