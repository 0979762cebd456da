import { diffRunConfigs } from './config-diff-runs.ts';
import { metricInfo, orderMetricKeys, WANTED_METRICS } from './metric-catalog.ts';
import {
  type ComparedMetric,
  type ComparedRun,
  type MissingMetric,
  type RunComparison,
  type RunStatus,
  runComparisonSchema,
} from './run-comparison-schema.ts';
import { type RunFolder, RunFolderError, readRunFolder } from './run-folder.ts';

export * from './run-comparison-schema.ts';
export { RunFolderError } from './run-folder.ts';

/** What the database says about a run (from `winnow runs`), when the caller has it. */
export interface KnownRunStatus {
  runId: string;
  status: Exclude<RunStatus, 'unfinished'>;
  statusNote?: string | undefined;
}

export interface LoadComparisonOptions {
  /** Statuses from the runs table; runs not listed get the status their folder shows. */
  statuses?: readonly KnownRunStatus[];
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

const lifecycleOf = (f: RunFolder) => (isObject(f.config.lifecycle) ? f.config.lifecycle : {});

/** A folder's own word on its status: run.json is written when the loop returns, complete or stopped. */
function folderStatus(f: RunFolder): { status: RunStatus; statusNote: string } {
  if (f.report === null)
    return { status: 'unfinished', statusNote: 'no run.json yet: running, or stopped before its end' };
  const lc = lifecycleOf(f);
  const planned = num(lc.steps);
  const done = lc.mode === 'bench' || planned === null || (num(f.report.steps) ?? 0) >= planned;
  return done
    ? { status: 'completed', statusNote: 'from run.json' }
    : { status: 'interrupted', statusNote: `from run.json: stopped after step ${num(f.report.steps) ?? 0}` };
}

/** Numbers measured before the first step (held-out accuracy, evaluation sets), as step 0's values. */
function stepZero(f: RunFolder): Map<string, number> {
  const out = new Map<string, number>();
  const r = f.report ?? {};
  const counters = isObject(r.counters) ? r.counters : {};
  const initial = num(r.initialAccuracy) ?? num(counters.initialAccuracy);
  if (initial !== null) out.set('accuracy', initial);
  if (isObject(r.initialEvaluation))
    for (const [k, v] of Object.entries(r.initialEvaluation)) if (num(v) !== null) out.set(k, v as number);
  return out;
}

function headlineOf(f: RunFolder, zero: Map<string, number>): ComparedRun['headline'] {
  const r = f.report ?? {};
  const last = <T>(xs: T[]) => xs[xs.length - 1];
  const values = (key: string) =>
    f.steps.map((s) => s.values.get(key)).filter((v): v is number => typeof v === 'number');
  return {
    initialAccuracy: zero.get('accuracy') ?? null,
    finalAccuracy: num(r.finalAccuracy) ?? last(values('accuracy')) ?? null,
    finalMeanReward: num(last(f.steps)?.values.get('meanReward')) ?? null,
    durationMs: num(r.durationMs),
  };
}

/**
 * Read two or more run folders into one comparison: each run's status, headline numbers and
 * config; every metric its step records carry, as series aligned on the union of their steps; the
 * metrics a comparison looks for that no run records (named, with why); and where the configs
 * differ. A missing or foreign folder is a one-line RunFolderError.
 */
export async function loadRunComparison(
  runDirs: string[],
  opts: LoadComparisonOptions = {},
): Promise<RunComparison> {
  if (runDirs.length === 0) throw new RunFolderError('compare needs at least one run folder');
  const folders = runDirs.map((d) => readRunFolder(d));
  const seen = new Map<string, string>();
  for (const f of folders) {
    const before = seen.get(f.runId);
    if (before !== undefined)
      throw new RunFolderError(
        `run '${f.runId}' is given twice (${before} and ${f.dir}); name each run once`,
      );
    seen.set(f.runId, f.dir);
  }
  const zeros = folders.map(stepZero);
  const steps = [
    ...new Set([
      ...folders.flatMap((f) => f.steps.map((s) => s.step)),
      ...(zeros.some((z) => z.size > 0) ? [0] : []),
    ]),
  ].sort((a, b) => a - b);
  const { series, metrics } = metricSeries(folders, zeros, steps);
  const missing: MissingMetric[] = WANTED_METRICS.filter(
    (w) => !metrics.some((m) => w.pattern.test(m.key)),
  ).map((w) => ({
    key: w.key,
    label: w.label,
    reason: `no run's step records (metrics.jsonl) carry it${w.key === 'accuracy' ? ' (no held-out set configured)' : ''}`,
  }));
  const known = new Map((opts.statuses ?? []).map((s) => [s.runId, s] as const));
  const runs = folders.map((f, i) => comparedRun(f, zeros[i]!, known.get(f.runId)));
  return runComparisonSchema.parse({
    runs,
    steps,
    metrics,
    missing,
    series,
    configDiff: folders.length > 1 ? diffRunConfigs(folders.map((f) => f.config)) : [],
  });
}

type StepZero = ReturnType<typeof stepZero>;

/** Every metric some run carries, as one row per run aligned on `steps` (null where a run has no value). */
function metricSeries(
  folders: readonly RunFolder[],
  zeros: readonly StepZero[],
  steps: readonly number[],
): { series: RunComparison['series']; metrics: ComparedMetric[] } {
  const index = new Map(steps.map((s, i) => [s, i] as const));
  const keys = orderMetricKeys(folders.flatMap((f) => f.steps.flatMap((s) => [...s.values.keys()])));
  const series: RunComparison['series'] = {};
  const metrics: ComparedMetric[] = [];
  for (const key of keys) {
    const byRun: Record<string, Array<number | null>> = {};
    const carriedBy: string[] = [];
    folders.forEach((f, i) => {
      const row: Array<number | null> = steps.map(() => null);
      const zero = zeros[i]!.get(key);
      if (zero !== undefined) row[index.get(0)!] = zero;
      // A resumed run may repeat a step: the later line wins, as it does in the run's own history.
      for (const s of f.steps) {
        const v = s.values.get(key);
        if (v !== undefined) row[index.get(s.step)!] = v;
      }
      byRun[f.runId] = row;
      if (row.some((v) => v !== null)) carriedBy.push(f.runId);
    });
    if (carriedBy.length === 0) continue;
    series[key] = byRun;
    metrics.push({ key, ...metricInfo(key), runs: carriedBy });
  }
  return { series, metrics };
}

/** One run's line: its status (the runs table's when known, else its folder's), steps, headline and config. */
function comparedRun(
  f: RunFolder,
  zero: StepZero,
  db: NonNullable<LoadComparisonOptions['statuses']>[number] | undefined,
): ComparedRun {
  const st = db ? { status: db.status, statusNote: db.statusNote } : folderStatus(f);
  return {
    id: f.runId,
    dir: f.dir,
    name: typeof f.config.name === 'string' ? f.config.name : '',
    status: st.status,
    ...(st.statusNote !== undefined ? { statusNote: st.statusNote } : {}),
    configHash: f.configHash,
    steps: f.steps.length === 0 ? 0 : Math.max(...f.steps.map((s) => s.step)),
    plannedSteps: num(lifecycleOf(f).steps),
    headline: headlineOf(f, zero),
    config: f.config,
  };
}
