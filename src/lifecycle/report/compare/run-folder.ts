import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { WinnowError } from '../../../core/errors.ts';
import { RUN_CONFIG_FILE } from '../../run/run-plan.ts';

/** A run folder that cannot be read: one line naming the folder or file, and a hint. Exit code 2. */
export class RunFolderError extends WinnowError {
  override name = 'RunFolderError';
  readonly exitCode = 2;
}

/** One step's numbers as metrics.jsonl holds them: numbers only (NaN was written as null). */
export type StepValues = Map<string, number | null>;

/** What a run folder holds, read once. */
export interface RunFolder {
  dir: string;
  runId: string;
  configHash: string;
  config: Record<string, unknown>;
  /** One entry per metrics.jsonl line, in file order. */
  steps: Array<{ step: number; values: StepValues }>;
  /** run.json (written when the run ends or stops), or null while it runs. */
  report: Record<string, unknown> | null;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

function readJson(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new RunFolderError(
      `${file}: not valid JSON (${(err as Error).message.split('\n')[0]}); the run folder is damaged`,
    );
  }
}

/** metrics.jsonl: one JSON object per line with a numeric `step`; other lines are errors naming the line. */
function readMetrics(file: string): RunFolder['steps'] {
  if (!existsSync(file)) return [];
  const out: RunFolder['steps'] = [];
  const lines = readFileSync(file, 'utf8').split('\n');
  lines.forEach((line, i) => {
    if (line.trim() === '') return;
    let rec: unknown;
    try {
      rec = JSON.parse(line);
    } catch {
      throw new RunFolderError(
        `${file}:${i + 1}: not a JSON object (metrics.jsonl holds one step record per line)`,
      );
    }
    if (!isObject(rec) || typeof rec.step !== 'number' || !Number.isInteger(rec.step))
      throw new RunFolderError(`${file}:${i + 1}: a step record needs an integer 'step'`);
    const values: StepValues = new Map();
    for (const [k, v] of Object.entries(rec)) {
      if (k === 'step') continue;
      if (typeof v === 'number' && Number.isFinite(v)) values.set(k, v);
      else if (v === null) values.set(k, null);
    }
    out.push({ step: rec.step, values });
  });
  return out;
}

/**
 * Read a run folder: run-config.json (required: it marks a Winnow RFT run folder), metrics.jsonl
 * and run.json (both optional: a run that has just started has neither).
 */
export function readRunFolder(dir: string): RunFolder {
  const abs = resolve(dir);
  if (!existsSync(abs))
    throw new RunFolderError(`${abs}: no such run folder (winnow runs lists the runs and their folders)`);
  if (!statSync(abs).isDirectory()) throw new RunFolderError(`${abs}: not a folder (a run is a folder)`);
  const configFile = join(abs, RUN_CONFIG_FILE);
  if (!existsSync(configFile))
    throw new RunFolderError(
      `${abs}: not a Winnow RFT run folder (no ${RUN_CONFIG_FILE}; winnow run writes one in each run folder)`,
    );
  const stored = readJson(configFile);
  if (!isObject(stored) || typeof stored.runId !== 'string' || !isObject(stored.config))
    throw new RunFolderError(`${configFile}: needs 'runId' and 'config' (the file is not Winnow's)`);
  const reportFile = join(abs, 'run.json');
  const report = existsSync(reportFile) ? readJson(reportFile) : null;
  return {
    dir: abs,
    runId: stored.runId,
    configHash: typeof stored.configHash === 'string' ? stored.configHash : '',
    config: stored.config,
    steps: readMetrics(join(abs, 'metrics.jsonl')),
    report: isObject(report) ? report : null,
  };
}
