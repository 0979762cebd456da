import {
  type CommandGroup,
  type CommandSpec,
  groupHelpText,
  parseCommand,
  unknownName,
} from '../src/cli/command-spec.ts';
import { UsageError } from '../src/core/usage-error.ts';
import { AGENTS_BENCH_SPEC } from './agents-spec.ts';
import {
  BENCH_SPECS,
  BUFFER_BENCH_SPEC,
  INGEST_BENCH_SPEC,
  LEARNING_BENCH_SPEC,
  MINHASH_BENCH_SPEC,
  OPS_BENCH_SPEC,
  REPLAY_BENCH_SPEC,
  SELECTION_BENCH_SPEC,
  TOKENIZE_BENCH_SPEC,
} from './bench-specs.ts';
import { JUDGE_BENCH_SPEC } from './judge-spec.ts';
import { CURRICULUM_BENCH_SPEC } from './learning-curriculum/spec.ts';
import { LOOP_BENCH_SPEC } from './loop-spec.ts';
import { SCALE_BENCH_SPEC } from './scale-spec.ts';
import { STUDIO_BENCH_SPEC } from './studio-spec.ts';

// `winnow bench`: benchmarks are not part of the library. The CLI's command table
// (src/cli/commands.ts) loads this module by a dynamic import only for `winnow bench` and for
// help, so `import '@winnow-rft/winnow'` and every other command load no benchmark file.

/** `winnow bench`: its benchmarks' specs live in bench/bench-specs.ts, beside the benchmarks. */
export const BENCH_GROUP: CommandGroup = {
  name: 'bench',
  summary:
    'Run a benchmark. Each one measures against a baseline run in the same process and prints a table (or JSON).',
  subcommands: BENCH_SPECS,
  examples: ['winnow bench selection --seeds 3', 'winnow bench ingest --help'],
};

type BenchMain = (argv: string[]) => Promise<number>;

/** Benchmarks live in bench/ (they are not part of the library); the CLI loads them on demand. */
const LOADERS: ReadonlyArray<readonly [CommandSpec, () => Promise<BenchMain>]> = [
  [INGEST_BENCH_SPEC, async () => (await import('./ingest.ts')).ingestBenchMain],
  [BUFFER_BENCH_SPEC, async () => (await import('./buffer.ts')).bufferBenchMain],
  [REPLAY_BENCH_SPEC, async () => (await import('./replay/main.ts')).replayBenchMain],
  [LEARNING_BENCH_SPEC, async () => (await import('./learning.ts')).learningBenchMain],
  [SELECTION_BENCH_SPEC, async () => (await import('./selection/index.ts')).selectionBenchMain],
  [TOKENIZE_BENCH_SPEC, async () => (await import('./tokenize.ts')).tokenizeBenchMain],
  [CURRICULUM_BENCH_SPEC, async () => (await import('./learning-curriculum/main.ts')).curriculumBenchMain],
  [JUDGE_BENCH_SPEC, async () => (await import('./judge.ts')).judgeBenchMain],
  [SCALE_BENCH_SPEC, async () => (await import('./scale.ts')).scaleBenchMain],
  [LOOP_BENCH_SPEC, async () => (await import('./loop.ts')).loopBenchMain],
  [OPS_BENCH_SPEC, async () => (await import('./ops.ts')).opsBenchMain],
  [STUDIO_BENCH_SPEC, async () => (await import('./studio.ts')).studioBenchMain],
  [AGENTS_BENCH_SPEC, async () => (await import('./agents-tools.ts')).agentsBenchMain],
  [MINHASH_BENCH_SPEC, async () => (await import('./minhash-banding.ts')).minhashBenchMain],
];

const benchName = (spec: CommandSpec) => spec.name.replace(/^bench /, '');

/** The spec of benchmark `name`, or a UsageError with the nearest names. */
export function benchSpec(name: string): CommandSpec {
  const spec = BENCH_SPECS.find((s) => benchName(s) === name);
  if (!spec) {
    const names = BENCH_SPECS.map(benchName);
    throw new UsageError(unknownName('benchmark', name, names, `available: ${names.join(', ')}`));
  }
  return spec;
}

export async function benchCommand(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined)
    throw new UsageError(
      `winnow bench needs a benchmark: ${BENCH_SPECS.map(benchName).join(', ')} (winnow bench --help)`,
    );
  if (name === '--help' || name === '-h') {
    process.stdout.write(`${groupHelpText(BENCH_GROUP)}\n`);
    return 0;
  }
  const spec = benchSpec(name);
  // Check the flags before loading the benchmark (and --help without loading it).
  if (!parseCommand(spec, rest)) return 0;
  const load = LOADERS.find(([s]) => s === spec)![1];
  return (await load())(rest);
}
