import { dirname, resolve } from 'node:path';
import { ConfigError, errorMessage, WinnowError } from '../core/errors.ts';
import { UsageError } from '../core/usage-error.ts';
import { readYamlFile } from '../core/yaml-file.ts';
import { runTaskPipelineFile } from '../lifecycle/pipeline/task-pipeline.ts';
import type { RftConfig } from '../lifecycle/run/rft-config.ts';
import { taskOperatorRegistry } from '../operators/registries.ts';
import { isDataJuicerRecipe } from '../recipes/data-juicer-recipe.ts';
import type { RunRecord } from '../store/run-table.ts';
import { applyStorageOptions } from '../store/storage-options.ts';
import { type OptionValues, parseCommand, refuseInapplicable } from './command-spec.ts';
import { Progress } from './progress.ts';
import { runRecipeCommand } from './recipe-command.ts';
import { formatRftReport, formatTaskReport } from './run-report.ts';
import { RUN_SPEC } from './specs/run.ts';

type RunValues = OptionValues<typeof RUN_SPEC.options>;

export async function runCommand(argv: string[]): Promise<number> {
  const parsed = parseCommand(RUN_SPEC, argv);
  if (!parsed) return 0;
  const { values, positionals, given } = parsed;
  const file = positionals[0];
  if (!file)
    throw new UsageError('winnow run needs the pipeline file: winnow run PIPELINE.yaml (winnow run --help)');
  try {
    return await runFile(file, values, given);
  } catch (err) {
    throw withConfigFile(err, file);
  }
}

/**
 * Config errors raised deep inside a run (a selector's or trainer's parameters) know their config
 * path but not the file; name the pipeline file so the message says where to look.
 */
function withConfigFile(err: unknown, file: string): unknown {
  if (!(err instanceof ConfigError) || err.file !== undefined) return err;
  const where = `${err.path || '<root>'}: `;
  const message = err.message.startsWith(where) ? err.message.slice(where.length) : err.message;
  return new ConfigError({ path: err.path, file: resolve(file), message });
}

/** The YAML parser throws plain errors for some hostile files (alias bombs): report them as config errors. */
function readConfigFile(file: string): unknown {
  try {
    return readYamlFile(file);
  } catch (err) {
    if (err instanceof WinnowError) throw err;
    throw new ConfigError({ path: '', file: resolve(file), message: `invalid YAML: ${errorMessage(err)}` });
  }
}

async function runFile(file: string, values: RunValues, given: ReadonlySet<string>): Promise<number> {
  const raw = readConfigFile(file);
  const kind = raw && typeof raw === 'object' && 'kind' in raw ? (raw as { kind: unknown }).kind : 'tasks';
  const progress = new Progress({ enabled: !values.json && !values.quiet });
  if (isDataJuicerRecipe(raw)) {
    if (values.queue)
      throw new UsageError(
        `--queue applies to RFT runs and task pipelines; ${file} is a Data-Juicer recipe, which runs in one process`,
      );
    const overwriteExport = values['overwrite-export'];
    return runRecipeCommand(RUN_SPEC, file, raw, { ...values, overwriteExport }, given, progress);
  }
  const { seed, steps } = values;
  await applyStorageOptions(raw, values['storage-option'], {
    dbFlag: values.db,
    configDir: dirname(resolve(file)),
  });
  if (kind === 'rft') {
    refuseInapplicable(RUN_SPEC, given, 'rft', `${file} is an RFT run (kind: rft)`);
    return runRftCommand(
      file,
      raw,
      {
        db: values.db,
        runDir: values['run-dir'],
        runsDir: values['runs-dir'],
        runId: values.run,
        overwrite: values.overwrite,
        seed,
        resume: values.resume,
        json: values.json,
        quiet: values.quiet,
        steps,
        queue: values.queue,
        leaseTtl: values['lease-ttl'],
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
  refuseInapplicable(RUN_SPEC, given, 'tasks', `${file} is a task pipeline (kind: tasks)`);
  const warnings: string[] = [];
  const report = await runTaskPipelineFile(file, {
    registry: taskOperatorRegistry(),
    strict: values.strict,
    keepPartial: values['keep-partial'],
    ...(values.db ? { dbDir: values.db } : {}),
    ...(seed !== undefined ? { seed } : {}),
    onWarn: (m) => warnings.push(m),
    onStart: (w) => {
      if (!values.json && !values.quiet) process.stderr.write(`run ${w.runId}\ndatabase: ${w.dbDir}\n`);
    },
    ...(values.queue ? await queuedPipelineInput(values) : {}),
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

async function runRftCommand(
  file: string,
  raw: unknown,
  o: {
    db: string | undefined;
    runDir: string | undefined;
    runsDir: string | undefined;
    runId: string | undefined;
    overwrite: string | undefined;
    seed: number | undefined;
    resume: boolean;
    json: boolean;
    quiet: boolean;
    steps: number | undefined;
    queue?: string | undefined;
    leaseTtl?: number | undefined;
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
  // Loaded on demand: the RFT stack costs start-up time that task pipelines do not need.
  const { parseRftConfig, runRft } = await import('../lifecycle/run/rft-run.ts');
  const abs = resolve(file);
  const config = parseRftConfig(raw, abs);
  // --queue: the run coordinates workers (loaded on demand, like the RFT stack).
  const coordinator = o.queue ? await openCoordinator(o.queue, o.leaseTtl, log) : undefined;
  const report = await runRft(config, {
    ...(coordinator ? { coordinator } : {}),
    removeQueuedJobs: (removed) => removeQueuedJobs(removed, o.queue),
    baseDir: dirname(abs),
    configFile: abs,
    ...(o.db ? { dbDir: o.db } : {}),
    ...(o.runDir ? { runDir: o.runDir } : {}),
    ...(o.runsDir ? { runsDir: o.runsDir } : {}),
    ...(o.runId ? { runId: o.runId } : {}),
    ...(o.overwrite ? { overwrite: o.overwrite } : {}),
    ...(o.seed !== undefined ? { seed: o.seed } : {}),
    ...(o.steps !== undefined ? { steps: o.steps } : {}),
    resume: o.resume,
    handleSignals: true,
    log,
    onStep: (r, total) => {
      const acc = r.accuracy !== undefined ? ` held-out ${pct(r.accuracy)}` : '';
      progress.update(
        `step ${r.step}/${total} reward ${Number.isFinite(r.meanReward) ? r.meanReward.toFixed(3) : '—'} effective ${pct(r.effectiveTaskRatio)}${acc} ${Math.round(r.rolloutsPerSecond)} rollouts/s`,
        r.step / total,
        true,
      );
    },
  }).finally(() => {
    progress.done();
    return coordinator?.close();
  });
  const paths = { ...rftPaths(file, config, { db: o.db }), 'run folder': report.runDir };
  if (o.json) process.stdout.write(`${JSON.stringify({ ...report, paths, log: lines }, null, 2)}\n`);
  else if (!o.quiet) process.stdout.write(`${formatRftReport(report, paths)}\n`);
  return 0;
}

/**
 * The files an RFT run reads and writes, resolved the way the run resolves them (relative to the
 * config file's folder; the database and run folder fall back to ./.winnow under the working folder).
 */
export function rftPaths(
  file: string,
  config: RftConfig,
  overrides: { db?: string | undefined } = {},
): Record<string, string> {
  const baseDir = dirname(resolve(file));
  const source = (s: RftConfig['tasks']) =>
    'path' in s
      ? resolve(baseDir, s.path)
      : `table '${s.table}'${s.version !== undefined ? ` @ ${s.version}` : ''}`;
  return {
    tasks: source(config.tasks),
    ...(config.heldout ? { 'held-out': source(config.heldout.source) } : {}),
    database: resolve(overrides.db ?? (config.db ? resolve(baseDir, config.db) : './.winnow/db')),
  };
}

/** --queue on a task pipeline: shards go to `winnow worker --role pipeline` processes (loaded on demand). */
async function queuedPipelineInput(values: RunValues) {
  const { parseQueueUrl } = await import('../scale/queue-url.ts');
  const { queuedPipeline } = await import('../scale/pipeline-coordinator.ts');
  return queuedPipeline({
    url: parseQueueUrl(values.queue ?? ''),
    shardBytes: values['shard-bytes'] ?? 8 * 1024 * 1024,
    window: 16,
    leaseTtlMs: (values['lease-ttl'] ?? 30) * 1000,
    log: (line) => process.stderr.write(`${line}\n`),
  });
}

/** `--overwrite` of a queued run: its jobs in Redis go with it (the queue code loads only for such a run). */
async function removeQueuedJobs(removed: RunRecord, queue: string | undefined): Promise<string | undefined> {
  if (!removed.summary.includes('"queue"')) return undefined;
  const { removeQueuedRunJobs } = await import('../scale/run-jobs.ts');
  const { parseQueueUrl } = await import('../scale/queue-url.ts');
  return removeQueuedRunJobs(removed, queue ? parseQueueUrl(queue) : undefined);
}

async function openCoordinator(queue: string, leaseTtl: number | undefined, log: (line: string) => void) {
  const { Coordinator } = await import('../scale/coordinator.ts');
  const { parseQueueUrl } = await import('../scale/queue-url.ts');
  return new Coordinator(parseQueueUrl(queue), { leaseTtlMs: (leaseTtl ?? 30) * 1000, log });
}
