import { AGENTS_BENCH_SPEC } from '../../bench/agents-spec.ts';
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
} from '../../bench/bench-specs.ts';
import { JUDGE_BENCH_SPEC } from '../../bench/judge-spec.ts';
import { CURRICULUM_BENCH_SPEC } from '../../bench/learning-curriculum/spec.ts';
import { LOOP_BENCH_SPEC } from '../../bench/loop-spec.ts';
import { SCALE_BENCH_SPEC } from '../../bench/scale-spec.ts';
import { STUDIO_BENCH_SPEC } from '../../bench/studio-spec.ts';
import { UsageError } from './args.ts';
import {
  type CommandGroup,
  type CommandSpec,
  groupHelpText,
  parseCommand,
  unknownName,
} from './command-spec.ts';

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
  [INGEST_BENCH_SPEC, async () => (await import('../../bench/ingest.ts')).ingestBenchMain],
  [BUFFER_BENCH_SPEC, async () => (await import('../../bench/buffer.ts')).bufferBenchMain],
  [REPLAY_BENCH_SPEC, async () => (await import('../../bench/replay.ts')).replayBenchMain],
  [LEARNING_BENCH_SPEC, async () => (await import('../../bench/learning.ts')).learningBenchMain],
  [SELECTION_BENCH_SPEC, async () => (await import('../../bench/selection/index.ts')).selectionBenchMain],
  [TOKENIZE_BENCH_SPEC, async () => (await import('../../bench/tokenize.ts')).tokenizeBenchMain],
  [
    CURRICULUM_BENCH_SPEC,
    async () => (await import('../../bench/learning-curriculum/main.ts')).curriculumBenchMain,
  ],
  [JUDGE_BENCH_SPEC, async () => (await import('../../bench/judge.ts')).judgeBenchMain],
  [SCALE_BENCH_SPEC, async () => (await import('../../bench/scale.ts')).scaleBenchMain],
  [LOOP_BENCH_SPEC, async () => (await import('../../bench/loop.ts')).loopBenchMain],
  [OPS_BENCH_SPEC, async () => (await import('../../bench/ops.ts')).opsBenchMain],
  [STUDIO_BENCH_SPEC, async () => (await import('../../bench/studio.ts')).studioBenchMain],
  [AGENTS_BENCH_SPEC, async () => (await import('../../bench/agents-tools.ts')).agentsBenchMain],
  [MINHASH_BENCH_SPEC, async () => (await import('../../bench/minhash-banding.ts')).minhashBenchMain],
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
