import { UsageError } from '../core/usage-error.ts';
import { type RunView, readRuns } from '../inspect/run-views.ts';
import { readableDbDir } from '../inspect/table-target.ts';
import { parseCommand } from './command-spec.ts';
import { RUNS_SPEC } from './specs/runs.ts';
import { formatTable } from './table.ts';

export function formatDuration(ms: number | null): string {
  if (ms === null) return '';
  if (ms < 1000) return `${Math.round(ms)}ms`;
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

export function statusText(v: RunView): string {
  return v.statusNote ? `${v.status} (${v.statusNote})` : v.status;
}

/** The one number a reader looks for first: held-out accuracy for RFT, tasks landed for task pipelines. */
export function headline(v: RunView): string {
  if (v.kind === 'tasks') {
    if (v.tasksLanded === null) return '';
    const landed = `${v.tasksLanded.toLocaleString('en-US')} tasks landed`;
    if (v.usage === null) return landed;
    const tokens = v.usage.llmPromptTokens + v.usage.llmCompletionTokens;
    const cost = v.usage.llmCost === undefined ? '' : `, cost ${v.usage.llmCost.toFixed(4)}`;
    return `${landed}; LLM ${tokens.toLocaleString('en-US')} tokens${cost}`;
  }
  if (v.initialAccuracy === null && v.finalAccuracy === null) return v.error ? `error: ${v.error}` : '';
  const f = (x: number | null) => (x === null ? '?' : x.toFixed(3));
  return `accuracy ${f(v.initialAccuracy)} → ${f(v.finalAccuracy)}`;
}

export function formatRuns(views: readonly RunView[]): string {
  return formatTable(
    ['run', 'kind', 'name', 'status', 'config', 'started', 'duration', 'steps', 'headline', 'folder'],
    views.map((v) => [
      v.runId,
      v.kind,
      v.name,
      statusText(v),
      v.configHash.slice(0, 8),
      v.startedAt.replace(/\.\d+Z$/, 'Z'),
      formatDuration(v.durationMs),
      v.steps ?? '',
      headline(v),
      v.runDir ?? '',
    ]),
  );
}

export async function runsCommand(argv: string[]): Promise<number> {
  const parsed = parseCommand(RUNS_SPEC, argv);
  if (!parsed) return 0;
  const { values, positionals } = parsed;
  if (positionals.length > 0)
    throw new UsageError(`runs takes no arguments, got ${positionals.join(' ')} (filter with --name NAME)`);
  const dbDir = readableDbDir(values.db);
  let views = await readRuns(dbDir);
  if (values.name !== undefined) views = views.filter((v) => v.name === values.name);
  if (values.json) process.stdout.write(`${JSON.stringify(views, null, 2)}\n`);
  else if (views.length === 0)
    process.stdout.write(
      `no runs${values.name !== undefined ? ` named '${values.name}'` : ''} in ${dbDir}\n`,
    );
  else process.stdout.write(`${formatRuns(views)}\n`);
  return 0;
}
