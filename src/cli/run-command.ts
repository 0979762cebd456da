import { resolve } from 'node:path';
import { readYamlFile } from '../core/config.ts';
import { ConfigError } from '../core/errors.ts';
import { runTaskPipelineFile, type TaskPipelineReport } from '../lifecycle/task-pipeline.ts';
import { taskOperatorRegistry } from '../operators/registries.ts';
import { intOption, parseCommandArgs, UsageError } from './args.ts';
import { Progress } from './progress.ts';
import { formatTable } from './table.ts';

const USAGE = 'winnow run <pipeline.yaml> [--db DIR] [--seed N] [--strict] [--json] [--quiet]';

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
    },
    USAGE,
  );
  const file = positionals[0];
  if (!file) throw new UsageError(`missing the pipeline file\n\nusage: ${USAGE}`);
  const raw = readYamlFile(file);
  const kind = raw && typeof raw === 'object' && 'kind' in raw ? (raw as { kind: unknown }).kind : 'tasks';
  if (kind !== 'tasks') {
    throw new ConfigError({
      path: 'kind',
      file: resolve(file),
      message: `unknown pipeline kind '${String(kind)}'`,
      hint: "expected 'tasks'",
    });
  }
  const progress = new Progress({ enabled: !values.json && !values.quiet });
  const seed = intOption(values.seed, 'seed');
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
