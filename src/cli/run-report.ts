import type { TaskPipelineReport } from '../lifecycle/pipeline/task-pipeline.ts';
import type { RftReport } from '../lifecycle/run/rft-run-started.ts';
import { tokenBudgetLines, tokenBudgetOf, usageLine, usageOf } from '../lifecycle/run/run-usage.ts';
import { formatTable } from './table.ts';

// The end-of-run summaries `winnow run` prints (task pipelines and RFT runs); recipes print the same.

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
    // "landed" counts what reached the table; unchanged tasks were already there (a re-run adds 0).
    `${r.tasksOut.toLocaleString('en-US')} tasks passed the operators; table '${r.table}' in ${r.dbDir}: ${r.inserted.toLocaleString('en-US')} new, ${r.updated.toLocaleString('en-US')} updated, ${r.unchanged.toLocaleString('en-US')} already there; it now holds ${r.totalTasks.toLocaleString('en-US')} (version ${r.tableVersion}, tag ${r.tag})`,
    `${r.rowsRead.toLocaleString('en-US')} rows read in ${secs.toFixed(1)} s (${Math.round(r.rowsRead / Math.max(secs, 1e-3)).toLocaleString('en-US')} rows/s); ${r.rejected} rejected`,
    ...tokenBudgetLine(r.steps),
    ...usageLines(r.steps),
    ...(r.warnings.length > 0 ? [`${r.warnings.length} warning(s), first: ${r.warnings[0]}`] : []),
    ...(r.reportFile ? [`report: ${r.reportFile}`] : []),
  ].join('\n');
}

function usageLines(steps: TaskPipelineReport['steps']): string[] {
  const usage = usageOf(steps);
  return usage ? [usageLine(usage)] : [];
}

/** The run's token budget, from the steps' token metrics (chat_template, token_length_filter…); none when no step counts tokens. */
export function tokenBudgetLine(steps: TaskPipelineReport['steps']): string[] {
  return tokenBudgetLines(tokenBudgetOf(steps));
}

/** `evaluation: gsm mean@4 25.0% → 50.0%, pass@4 50.0% → 100.0%; …` from the first and last measured values. */
function evaluationLines(r: RftReport, pct: (v: number | undefined) => string): string[] {
  const last = new Map<string, number>();
  for (const h of r.history)
    for (const [k, v] of Object.entries(h))
      if (k.startsWith('eval/') && typeof v === 'number') last.set(k, v);
  if (last.size === 0) return [];
  const first = r.initialEvaluation ?? {};
  const sets = new Map<string, string[]>();
  for (const [key, v] of last) {
    const [, set, metric] = key.split('/');
    const parts = sets.get(set!) ?? [];
    parts.push(`${metric} ${first[key] === undefined ? '' : `${pct(first[key])} → `}${pct(v)}`);
    sets.set(set!, parts);
  }
  return [`evaluation: ${[...sets].map(([set, parts]) => `${set} ${parts.join(', ')}`).join('; ')}`];
}

export function formatRftReport(r: RftReport, paths: Record<string, string> = {}): string {
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
    ...Object.entries(paths).map(([k, v]) => `${k}: ${v}`),
    ...Object.entries(r.describe).map(([k, v]) => `${k}: ${v}`),
    '',
    formatTable(['step', 'mean reward', 'effective', 'difficulty', 'held-out', 'loss', 'rollouts/s'], rows),
    '',
    `held-out accuracy ${pct(r.initialAccuracy)} → ${pct(r.finalAccuracy)}; mean effective task ratio ${pct(mean((x) => x.effectiveTaskRatio))}; ${r.counters.rollouts ?? 0} rollouts, ${r.counters.failedGroups ?? 0} failed groups, ${r.counters.rejected ?? 0} rows recorded in rejected; ${(r.durationMs / 1000).toFixed(1)} s`,
    ...((r.counters.rewardTimeouts ?? 0) +
      (r.counters.rewardTooLarge ?? 0) +
      (r.counters.rewardTooCostly ?? 0) >
    0
      ? [
          `reward judgements given up (scored 0): ${r.counters.rewardTimeouts ?? 0} timed out, ${r.counters.rewardTooLarge ?? 0} too large, ${r.counters.rewardTooCostly ?? 0} too costly`,
        ]
      : []),
    ...evaluationLines(r, pct),
    ...(r.faults
      ? [
          `injected faults: ${Object.entries(r.faults)
            .map(([k, v]) => `${k} ${v}`)
            .join(', ')}`,
        ]
      : []),
    ...r.files.map((f) => `wrote ${f}`),
  ].join('\n');
}
