import { join } from 'node:path';
import type { Hooks } from '../../src/lifecycle/hooks.ts';
import { buildRftParts } from '../../src/lifecycle/run/rft-build.ts';
import type { RftConfig } from '../../src/lifecycle/run/rft-config.ts';
import type { RftEvents } from '../../src/lifecycle/run/rft-events.ts';
import type { RftParts } from '../../src/lifecycle/run/rft-parts.ts';
import { runRftLoop } from '../../src/lifecycle/run/run-loop.ts';
import type { RftRunResult } from '../../src/lifecycle/run/types.ts';
import { RejectedStore } from '../../src/store/rejected-store.ts';
import { SelectorStateStore } from '../../src/store/selector-state-store.ts';
import { REPO_ROOT } from '../helpers/cli.ts';

/** A run's folders under a test's temp dir: its own database and run folder. */
export interface LoopPlace {
  dbDir: string;
  runDir: string;
}

export const placeIn = (dir: string, name: string): LoopPlace => ({
  dbDir: join(dir, `db-${name}`),
  runDir: join(dir, `run-${name}`),
});

/** Build a run's parts from its config the way `winnow run` does (paths relative to the repo root). */
export async function buildParts(config: RftConfig, at: LoopPlace, runId = config.name) {
  const rejected = await RejectedStore.open(at.dbDir);
  const parts = await buildRftParts(config, {
    baseDir: REPO_ROOT,
    dbDir: at.dbDir,
    runDir: at.runDir,
    runId,
    seed: config.seed,
    rejected,
  });
  return { parts, rejected };
}

/**
 * Build the parts and drive them with `runRftLoop` directly; `inspect` sees the parts (buffer,
 * rejected store) before they are closed.
 */
export async function runLoop<T = undefined>(
  config: RftConfig,
  at: LoopPlace,
  o: {
    hooks?: Hooks<RftEvents>;
    adjust?: (parts: RftParts) => void;
    inspect?: (parts: RftParts, result: RftRunResult, rejected: RejectedStore) => Promise<T>;
  } = {},
): Promise<{ result: RftRunResult; seen: T | undefined }> {
  const runId = config.name;
  const { parts, rejected } = await buildParts(config, at, runId);
  o.adjust?.(parts);
  try {
    const result = await runRftLoop({
      config,
      configHash: 'test',
      runDir: at.runDir,
      runId,
      parts,
      rejected,
      selectorStates: await SelectorStateStore.open(at.dbDir),
      ...(o.hooks ? { hooks: o.hooks } : {}),
    });
    const seen = o.inspect ? await o.inspect(parts, result, rejected) : undefined;
    return { result, seen };
  } finally {
    await parts.buffer.close().catch(() => undefined);
    parts.dispose?.();
  }
}
