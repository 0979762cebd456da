import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { closestNames } from '../../../core/suggest.ts';
import { RUN_CONFIG_FILE } from '../../run/run-plan.ts';
import { RunFolderError } from './run-folder.ts';

/** A run the database knows: its id and where its folder is (`winnow runs`). */
export interface RecordedRun {
  runId: string;
  runDir: string | null;
}

const isRunFolder = (dir: string) => existsSync(join(dir, RUN_CONFIG_FILE));

/** The run ids with a folder in `runsDir` (folders holding run-config.json), sorted. */
export function runIdsIn(runsDir: string): string[] {
  if (!existsSync(runsDir) || !statSync(runsDir).isDirectory()) return [];
  return readdirSync(runsDir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && isRunFolder(join(runsDir, d.name)))
    .map((d) => d.name)
    .sort();
}

/**
 * Turn each RUN of `winnow compare RUN RUN…` into a run folder: a path to a folder (as given), else
 * a run id — `<runsDir>/<id>`, or the folder the database recorded for it. An unknown id is a
 * one-line error naming it and the nearest known ids.
 */
export function resolveRunRefs(
  refs: readonly string[],
  o: { runsDir: string; recorded?: readonly RecordedRun[]; cwd?: string },
): string[] {
  const cwd = o.cwd ?? process.cwd();
  const recorded = new Map((o.recorded ?? []).map((r) => [r.runId, r.runDir] as const));
  return refs.map((ref) => {
    const asPath = resolve(cwd, ref);
    if (ref.includes('/') || ref.includes('\\') || ref.startsWith('.')) {
      if (existsSync(asPath)) return asPath;
      throw new RunFolderError(
        `${asPath}: no such run folder (winnow runs lists the runs and their folders)`,
      );
    }
    const inRuns = join(o.runsDir, ref);
    if (existsSync(inRuns)) return inRuns;
    const dir = recorded.get(ref);
    if (dir) return dir;
    if (existsSync(asPath) && statSync(asPath).isDirectory()) return asPath;
    const known = [...new Set([...runIdsIn(o.runsDir), ...recorded.keys()])].sort();
    const near = closestNames(ref, known);
    const hint =
      near.length > 0
        ? `nearest: ${near.map((n) => `'${n}'`).join(', ')}`
        : known.length > 0
          ? `runs there: ${known
              .slice(0, 5)
              .map((n) => `'${n}'`)
              .join(', ')}${known.length > 5 ? ', …' : ''}`
          : 'there are no runs there';
    throw new RunFolderError(`unknown run '${ref}' in ${o.runsDir} (${hint}; winnow runs lists them)`);
  });
}
