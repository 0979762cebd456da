import type { RunRegistries } from './run-registries.ts';

/** What every builder of a run's parts gets: the run's options, its registries, and config paths. */
export interface RftBuildContext {
  baseDir: string;
  file: string | undefined;
  dbDir: string;
  runDir: string;
  runId: string;
  seed: number;
  reg: RunRegistries;
  /** Where a slot sits, for resolving it (module paths are relative to `baseDir`) and for errors. */
  at(path: string): { baseDir: string; path: string; file: string | undefined };
}
