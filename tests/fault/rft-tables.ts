import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ExperienceBuffer } from '../../src/buffer/experience-buffer.ts';
import type { StepRecord } from '../../src/lifecycle/run/step-record.ts';
import { RunTable } from '../../src/store/run-table.ts';
import { fileLines, tableRows } from './harness.ts';

/**
 * Everything an RFT run writes, read back for comparing a killed-and-resumed run with an
 * uninterrupted one: every table (the run's buffer rows with their use counts, its rows in
 * `rejected` and `selector_states`, its record in `runs`) and every file of its run folder that
 * a resume rewrites (metrics.jsonl, rollout-examples.jsonl, the last checkpoint). Wall-clock
 * fields (times, durations, the process id) are left out; everything else must be equal.
 */

/** The numbers a resumed run must reproduce, step by step (timings aside). */
export const essence = (h: readonly StepRecord[]) =>
  h.map((r) => Object.fromEntries(Object.entries(r).filter(([k]) => !/Ms$|PerSecond$|^createdAt$/.test(k))));

export const metrics = (runDir: string) =>
  fileLines(join(runDir, 'metrics.jsonl')).map((l) => JSON.parse(l) as StepRecord);

export interface Latest {
  step: number;
  dir: string;
}
export const latest = (runDir: string): Latest | null => {
  const f = join(runDir, 'checkpoints', 'latest.json');
  return existsSync(f) ? (JSON.parse(readFileSync(f, 'utf8')) as Latest) : null;
};

/** sha256 of every file under a checkpoint folder (trainer and explorer weights), by relative path. */
function digest(folder: string, skip: (rel: string) => boolean): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string, rel: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(join(d, e.name), r);
      else if (!skip(r))
        out[r] = createHash('sha256')
          .update(readFileSync(join(d, e.name)))
          .digest('hex');
    }
  };
  walk(folder, '');
  return out;
}

/** A JSON payload without wall-clock fields (`createdAt`, `…Ms`), which a redone step writes anew. */
function timeless(text: unknown): string {
  try {
    return JSON.stringify(JSON.parse(String(text)), (k, v) => (/At$|Ms$/.test(k) ? undefined : v));
  } catch {
    return String(text);
  }
}

/** Row texts sorted: equal multisets compare equal, a duplicate row shows as a longer list. */
const sortedRows = (rows: Record<string, unknown>[], cols: string[]) =>
  rows.map((r) => cols.map((c) => (c === 'payload' ? timeless(r[c]) : String(r[c]))).join(' | ')).sort();

/** The run record without what depends on the clock, the process or the folder it ran in. */
function plainRecord(r: Awaited<ReturnType<typeof RunTable.readAll>>[number] | undefined) {
  if (!r) return null;
  const summary = JSON.parse(r.summary) as Record<string, unknown>;
  for (const k of ['pid', 'host', 'runDir']) delete summary[k];
  return { ...r, startedAt: 0, finishedAt: 0, summary };
}

/** The state of a checkpoint without its wall-clock time and step timings. */
function plainState(dir: string): Record<string, unknown> {
  const st = JSON.parse(readFileSync(join(dir, 'state.json'), 'utf8')) as Record<string, unknown>;
  return { ...st, createdAt: 0, history: essence((st.history ?? []) as StepRecord[]) };
}

export async function snapshotRun(
  db: string,
  runDir: string,
  runId: string,
  buffer: Record<string, unknown>,
) {
  const table = `${runId}_experiences`;
  const rows = await tableRows(db, table);
  const open = await ExperienceBuffer.open(db, { ...buffer, table });
  const books = open
    .bookkeeping()
    .map((b) => `${b.id} uses=${b.useCount} pending=${b.pending} consumed=${b.consumed}`)
    .sort();
  const stats = open.stats();
  await open.close();
  const ofRun = (t: Record<string, unknown>[]) => t.filter((r) => r.run_id === runId);
  const ck = latest(runDir);
  return {
    metrics: essence(metrics(runDir)),
    buffer: sortedRows(rows, [
      'id',
      'group_id',
      'task_id',
      'reward',
      'advantage',
      'response',
      'model_version',
      'explore_step',
    ]),
    books,
    stats,
    rejected: sortedRows(ofRun(await tableRows(db, 'rejected')), [
      'step',
      'reason',
      'file',
      'row',
      'row_id',
      'payload',
    ]),
    selectorStates: sortedRows(ofRun(await tableRows(db, 'selector_states')), ['step', 'selector', 'state']),
    record: plainRecord((await RunTable.readAll(db)).find((r) => r.runId === runId)),
    examples: fileLines(join(runDir, 'rollout-examples.jsonl')),
    checkpoint: ck?.step ?? null,
    state: ck ? plainState(ck.dir) : {},
    files: ck ? digest(ck.dir, (rel) => rel === 'state.json') : {},
  };
}
export type RunSnapshot = Awaited<ReturnType<typeof snapshotRun>>;
