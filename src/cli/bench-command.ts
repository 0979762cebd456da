import { UsageError } from './args.ts';

/**
 * `winnow bench <name> [...]`: benchmarks live in bench/ (they are not part of the library);
 * the CLI loads them on demand.
 */
export async function benchCommand(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  switch (name) {
    case 'ingest': {
      const { ingestBenchMain } = await import('../../bench/ingest.ts');
      return ingestBenchMain(rest);
    }
    case 'buffer': {
      const { bufferBenchMain } = await import('../../bench/buffer.ts');
      return bufferBenchMain(rest);
    }
    case 'replay': {
      const { replayBenchMain } = await import('../../bench/replay.ts');
      return replayBenchMain(rest);
    }
    case 'learning': {
      const { learningBenchMain } = await import('../../bench/learning.ts');
      return learningBenchMain(rest);
    }
    case 'selection': {
      const { selectionBenchMain } = await import('../../bench/selection/index.ts');
      return selectionBenchMain(rest);
    }
    default:
      throw new UsageError(
        `unknown benchmark '${name ?? ''}'; available: ingest, selection, learning, buffer, replay`,
      );
  }
}
