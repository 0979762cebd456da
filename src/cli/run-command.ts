import { resolve } from 'node:path';
import { readYamlFile } from '../core/config.ts';
import { ConfigError } from '../core/errors.ts';
import { type RftReport, runRftFile } from '../lifecycle/rft-run.ts';
import { runTaskPipelineFile, type TaskPipelineReport } from '../lifecycle/task-pipeline.ts';
import { taskOperatorRegistry } from '../operators/registries.ts';
import { intOption, parseCommandArgs, UsageError } from './args.ts';
import { Progress } from './progress.ts';
import { formatTable } from './table.ts';

const USAGE =
  'winnow run <pipeline.yaml> [--db DIR] [--seed N] [--strict] [--resume] [--steps N] [--json] [--quiet]';

export async function runCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(
    argv,
    {
      db: { type: 'string' },
      seed: { type: 'string' },
      strict: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      quiet: { type: 'boolean', default: false },
      resume: { type: 'boolean', default: false },
      steps: { type: 'string' },
    },
    USAGE,
  );
  const file = positionals[0];
  if (!file) throw new UsageError(`missing the pipeline file\n\nusage: ${USAGE}`);
  const raw = readYamlFile(file);
  const kind = raw && typeof raw === 'object' && 'kind' in raw ? (raw as { kind: unknown }).kind : 'tasks';
  const progress = new Progress({ enabled: !values.json && !values.quiet });
  const seed = intOption(values.seed, 'seed');
  if (kind === 'rft') {
    return runRftCommand(
      file,
      {
        db: values.db,
        seed,
        resume: values.resume,
        json: values.json,
        quiet: values.quiet,
        steps: intOption(values.steps, 'steps'),
      },
      progress,
    );
  }
  if (kind !== 'tasks') {
    throw new ConfigError({
      path: 'kind',
      file: resolve(file),
      message: `unknown pipeline kind '${String(kind)}'`,
      hint: "expected 'tasks' or 'rft'",
    });
  }
  const warnings: string[] = [];
  const report = await runTaskPipelineFile(file, {
    registry: taskOperatorRegistry(),
    strict: values.strict,
    ...(values.db ? { dbDir: values.db } : {}),
    ...(seed !== undefined ? { seed } : {}),
    onWarn: (m) => warnings.push(m),
    onProgress: (p) => {
      const rate = p.rowsRead / Math.max(1e-3, p.elapsedMs / 1000);
      progress.update(
        `${p.rowsRead.toLocaleString('en-US')} rows read, ${p.tasksOut.toLocaleString('en-US')} tasks, ${p.rejected.toLocaleString('en-US')} rejected, ${Math.round(rate).toLocaleString('en-US')} rows/s`,
      );
    },
  }).finally(() => progress.done());

  if (values.json) {
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  } else if (!values.quiet) {
    process.stdout.write(`${formatTaskReport(report)}\n`);
  }
  if (report.rejected > 0 && !values.json) {
    process.stderr.write(
      `warning: ${report.rejected.toLocaleString('en-US')} row(s) rejected (${report.inputErrors} input error(s)); see: winnow inspect --db ${report.dbDir} --table rejected\n`,
    );
  }
  return 0;
}

export function formatTaskReport(r: TaskPipelineReport): string {
  const rows = r.steps.map((s) => {
    const top = Object.entries(s.reasons)
      .sort((a, b) => b[1] - a[1])
      .slice(0, 2)
      .map(([k, v]) => `${k} (${v})`)
      .join('; ');
    return [s.step, s.rowsIn, s.rowsOut, s.dropped, Math.round(s.ms), top];
  });
  const secs = r.durationMs / 1000;
  return [
    `run ${r.runId} — ${r.name}`,
    `files: ${r.files.join(', ')}`,
    '',
    formatTable(['step', 'in', 'out', 'dropped', 'ms', 'top reasons'], rows),
    '',
    `landed ${r.tasksOut.toLocaleString('en-US')} tasks in ${r.dbDir} table '${r.table}': ${r.inserted} new, ${r.updated} updated, ${r.unchanged} unchanged; table now holds ${r.totalTasks.toLocaleString('en-US')} (version ${r.tableVersion}, tag ${r.tag})`,
    `${r.rowsRead.toLocaleString('en-US')} rows read in ${secs.toFixed(1)} s (${Math.round(r.rowsRead / Math.max(secs, 1e-3)).toLocaleString('en-US')} rows/s); ${r.rejected} rejected`,
    ...(r.warnings.length > 0 ? [`${r.warnings.length} warning(s), first: ${r.warnings[0]}`] : []),
  ].join('\n');
}

async function runRftCommand(
  file: string,
  o: {
    db: string | undefined;
    seed: number | undefined;
    resume: boolean;
    json: boolean;
    quiet: boolean;
    steps: number | undefined;
  },
  progress: Progress,
): Promise<number> {
  const lines: string[] = [];
  const log = (line: string) => {
    if (o.json) lines.push(line);
    else if (!o.quiet) {
      progress.done();
      process.stderr.write(`${line}\n`);
    }
  };
  const pct = (v: number | undefined) =>
    v === undefined || !Number.isFinite(v) ? '—' : `${(v * 100).toFixed(1)}%`;
  const report = await runRftFile(file, {
    ...(o.db ? { dbDir: o.db } : {}),
    ...(o.seed !== undefined ? { seed: o.seed } : {}),
    ...(o.steps !== undefined ? { steps: o.steps } : {}),
    resume: o.resume,
    log,
    onStep: (r, total) => {
      const acc = r.accuracy !== undefined ? ` held-out ${pct(r.accuracy)}` : '';
      progress.update(
        `step ${r.step}/${total} reward ${Number.isFinite(r.meanReward) ? r.meanReward.toFixed(3) : '—'} effective ${pct(r.effectiveTaskRatio)}${acc} ${Math.round(r.rolloutsPerSecond)} rollouts/s`,
        r.step / total,
        true,
      );
    },
  }).finally(() => progress.done());
  if (o.json) process.stdout.write(`${JSON.stringify({ ...report, log: lines }, null, 2)}\n`);
  else if (!o.quiet) process.stdout.write(`${formatRftReport(report)}\n`);
  return 0;
}

export function formatRftReport(r: RftReport): string {
  const pct = (v: number | undefined) =>
    v === undefined || !Number.isFinite(v) ? '—' : `${(v * 100).toFixed(1)}%`;
  const h = r.history;
  const mean = (f: (x: (typeof h)[number]) => number) => {
    const xs = h.map(f).filter((x) => Number.isFinite(x));
    return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : Number.NaN;
  };
  const rows = h
    .filter((x) => x.accuracy !== undefined || x.step === h[h.length - 1]?.step)
    .map((x) => [
      x.step,
      x.meanReward,
      pct(x.effectiveTaskRatio),
      x.meanDifficulty,
      pct(x.accuracy),
      x.trainLoss,
      Math.round(x.rolloutsPerSecond),
    ]);
  return [
    `run ${r.runId} — ${r.name}${r.resumedFrom > 0 ? ` (resumed from step ${r.resumedFrom})` : ''}`,
    ...Object.entries(r.describe).map(([k, v]) => `${k}: ${v}`),
    '',
    formatTable(['step', 'mean reward', 'effective', 'difficulty', 'held-out', 'loss', 'rollouts/s'], rows),
    '',
    `held-out accuracy ${pct(r.initialAccuracy)} → ${pct(r.finalAccuracy)}; mean effective task ratio ${pct(mean((x) => x.effectiveTaskRatio))}; ${r.counters.rollouts ?? 0} rollouts, ${r.counters.failedGroups ?? 0} failed groups, ${r.counters.rejected ?? 0} rows recorded in rejected; ${(r.durationMs / 1000).toFixed(1)} s`,
    ...(r.faults
      ? [
          `injected faults: ${Object.entries(r.faults)
            .map(([k, v]) => `${k} ${v}`)
            .join(', ')}`,
        ]
      : []),
    ...(r.reportFile ? [`report: ${r.reportFile}`] : []),
  ].join('\n');
}
