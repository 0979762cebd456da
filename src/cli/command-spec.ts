import { parseArgs } from 'node:util';
import { UsageError } from './args.ts';

/** One flag of a command: how it parses and how `--help` describes it. */
export interface OptionSpec {
  type: 'string' | 'boolean';
  /** Placeholder shown after a string flag (`--db DIR`). */
  value?: string;
  short?: string;
  description: string;
}

/**
 * A command's whole interface in one place: the parser and `--help` both read it, so the help
 * cannot drift from what the command accepts.
 */
export interface CommandSpec<O extends Record<string, OptionSpec> = Record<string, OptionSpec>> {
  name: string;
  /** Positional arguments as the usage line shows them (`RUN [RUN…]`). */
  args: string;
  summary: string;
  options: O;
  /** More lines for `--help`, after the options. */
  notes?: readonly string[];
  examples: readonly string[];
}

export type OptionValues<O extends Record<string, OptionSpec>> = {
  [K in keyof O]: O[K]['type'] extends 'boolean' ? boolean : string | undefined;
};

const flag = (name: string, o: OptionSpec) =>
  o.type === 'string' ? `--${name} ${o.value ?? 'VALUE'}` : `--${name}`;

/** `winnow gc RUN [RUN…] [--db DIR] [--yes]` */
export function usageLine(spec: CommandSpec): string {
  const opts = Object.entries(spec.options).map(([n, o]) => `[${flag(n, o)}]`);
  return ['winnow', spec.name, spec.args, ...opts].filter((s) => s !== '').join(' ');
}

export function helpText(spec: CommandSpec): string {
  const rows = Object.entries(spec.options).map(([n, o]) => [
    `${o.short ? `-${o.short}, ` : ''}${flag(n, o)}`,
    o.description,
  ]);
  rows.push(['-h, --help', 'print this help']);
  const width = Math.max(...rows.map(([l]) => l!.length));
  return [
    `${spec.summary}`,
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

/**
 * Parse `argv` by `spec`. `--help` prints the help and returns null (the command exits 0); a bad
 * flag is a UsageError (exit 2) that repeats the usage line.
 */
export function parseCommand<O extends Record<string, OptionSpec>>(
  spec: CommandSpec<O>,
  argv: string[],
): { values: OptionValues<O>; positionals: string[] } | null {
  const options: Record<string, { type: 'string' | 'boolean'; short?: string }> = {
    help: { type: 'boolean', short: 'h' },
  };
  for (const [n, o] of Object.entries(spec.options))
    options[n] = { type: o.type, ...(o.short ? { short: o.short } : {}) };
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError(
      `${(err as Error).message}\n\nusage: ${usageLine(spec)}\n(winnow ${spec.name} --help for more)`,
    );
  }
  if (parsed.values.help === true) {
    process.stdout.write(`${helpText(spec)}\n`);
    return null;
  }
  const values: Record<string, unknown> = {};
  for (const [n, o] of Object.entries(spec.options))
    values[n] = o.type === 'boolean' ? parsed.values[n] === true : parsed.values[n];
  return { values: values as OptionValues<O>, positionals: parsed.positionals };
}
