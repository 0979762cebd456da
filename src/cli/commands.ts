import type { CommandGroup, CommandSpec } from './command-spec.ts';

/** What runs a command: its arguments (after the command's name) in, its exit code out. */
export type Command = (argv: string[]) => Promise<number>;

/**
 * One command of `winnow`, as two loaders: its definition (help, docs/cli.md) and what runs it.
 * Each loads only when needed, so `winnow --help` loads the small spec modules (src/cli/specs/)
 * and `winnow runs` loads neither the RFT run nor the benchmarks.
 */
export interface CommandEntry {
  name: string;
  spec: () => Promise<CommandSpec | CommandGroup>;
  run: () => Promise<Command>;
  /** A group's member (`winnow help bench ingest`): its spec, or a UsageError naming the nearest. */
  member?: (name: string) => Promise<CommandSpec>;
}

/** Benchmarks are not part of the library: bench/command.ts is loaded only here, and only when asked for. */
const bench = () => import('../../bench/command.ts');

/** Every command, in the order `winnow --help` and docs/cli.md list them. */
export const COMMANDS: readonly CommandEntry[] = [
  {
    name: 'run',
    spec: async () => (await import('./specs/run.ts')).RUN_SPEC,
    run: async () => (await import('./run-command.ts')).runCommand,
  },
  {
    name: 'inspect',
    spec: async () => (await import('./specs/inspect.ts')).inspectSpec,
    run: async () => (await import('./inspect-command.ts')).inspectCommand,
  },
  {
    name: 'export',
    spec: async () => (await import('./specs/export.ts')).exportSpec,
    run: async () => (await import('./export-command.ts')).exportCommand,
  },
  {
    name: 'schema',
    spec: async () => (await import('./specs/schema.ts')).SCHEMA_SPEC,
    run: async () => (await import('./schema-command.ts')).schemaCommand,
  },
  {
    name: 'convert',
    spec: async () => (await import('./specs/convert.ts')).CONVERT_SPEC,
    run: async () => (await import('./convert-command.ts')).convertCommand,
  },
  {
    name: 'runs',
    spec: async () => (await import('./specs/runs.ts')).RUNS_SPEC,
    run: async () => (await import('./runs-command.ts')).runsCommand,
  },
  {
    name: 'compare',
    spec: async () => (await import('./specs/compare.ts')).COMPARE_SPEC,
    run: async () => (await import('./compare-command.ts')).compareCommand,
  },
  {
    name: 'gc',
    spec: async () => (await import('./specs/gc.ts')).GC_SPEC,
    run: async () => (await import('./gc-command.ts')).gcCommand,
  },
  {
    name: 'tokenize',
    spec: async () => (await import('./specs/tokenize.ts')).TOKENIZE_SPEC,
    run: async () => (await import('./tokenize-command.ts')).tokenizeCommand,
  },
  {
    name: 'judge',
    spec: async () => (await import('./specs/judge.ts')).JUDGE_SPEC,
    run: async () => (await import('./judge-command.ts')).judgeCommand,
  },
  {
    name: 'serve',
    spec: async () => (await import('./specs/serve.ts')).SERVE_SPEC,
    run: async () => (await import('./serve-command.ts')).serveCommand,
  },
  {
    name: 'dev-server',
    spec: async () => (await import('./specs/dev-server.ts')).DEV_SERVER_SPEC,
    run: async () => (await import('./dev-server/dev-server-command.ts')).devServerCommand,
  },
  {
    name: 'studio',
    spec: async () => (await import('./specs/studio.ts')).STUDIO_SPEC,
    run: async () => (await import('./studio-command.ts')).studioCommand,
  },
  {
    name: 'worker',
    spec: async () => (await import('./specs/worker.ts')).WORKER_SPEC,
    run: async () => (await import('./worker-command.ts')).workerCommand,
  },
  {
    name: 'bench',
    spec: async () => (await bench()).BENCH_GROUP,
    run: async () => (await bench()).benchCommand,
    member: async (name) => (await bench()).benchSpec(name),
  },
];

/** Every command with its definition loaded (help, docs/cli.md, tests); loads no command's code. */
export async function commandSpecs(): Promise<{ name: string; spec: CommandSpec | CommandGroup }[]> {
  return Promise.all(COMMANDS.map(async (c) => ({ name: c.name, spec: await c.spec() })));
}
