import { hostname } from 'node:os';
import type { RunUsage } from '../lifecycle/run/run-usage.ts';
import { type RunRecord, RunTable } from '../store/run-table.ts';

// The runs table read for people: `winnow runs`, `winnow compare`, `winnow gc` and the Studio's
// run pages all see a run through `viewRun`.

/** One run as `winnow runs` shows it. */
export interface RunView {
  runId: string;
  kind: string;
  name: string;
  /** The status to act on: a `running` record whose process is gone reads `interrupted`. */
  status: RunRecord['status'];
  /** What the record says, when it differs from `status`. */
  recordedStatus?: RunRecord['status'];
  statusNote?: string;
  configHash: string;
  seed: number;
  startedAt: string;
  finishedAt: string | null;
  durationMs: number | null;
  steps: number | null;
  initialAccuracy: number | null;
  finalAccuracy: number | null;
  tasksLanded: number | null;
  /** LLM requests, cache hits, tokens and cost of the run's model-backed operators. */
  usage: RunUsage | null;
  /** Token counts by step (chat_template's promptTokens, token_length_filter's kept/dropped…). */
  tokens: Record<string, Record<string, number>> | null;
  runDir: string | null;
  bufferTable: string | null;
  error: string | null;
}

/** Whether process `pid` lives on this machine (EPERM: it lives, owned by someone else). */
function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function parseSummary(r: RunRecord): Record<string, unknown> {
  try {
    const s = JSON.parse(r.summary) as unknown;
    return s !== null && typeof s === 'object' ? (s as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** A stored usage object, read defensively (the runs table may hold rows from other versions). */
function usageOfSummary(v: unknown): RunUsage | null {
  if (v === null || typeof v !== 'object') return null;
  const u = v as Record<string, unknown>;
  const f = (k: string) => (typeof u[k] === 'number' && Number.isFinite(u[k]) ? (u[k] as number) : 0);
  return {
    llmRequests: f('llmRequests'),
    llmCacheHits: f('llmCacheHits'),
    llmPromptTokens: f('llmPromptTokens'),
    llmCompletionTokens: f('llmCompletionTokens'),
    ...(typeof u.llmCost === 'number' ? { llmCost: u.llmCost } : {}),
  };
}

function tokensOfSummary(v: unknown): Record<string, Record<string, number>> | null {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return null;
  const out: Record<string, Record<string, number>> = {};
  for (const [step, counts] of Object.entries(v as Record<string, unknown>)) {
    if (counts === null || typeof counts !== 'object') continue;
    const numeric = Object.entries(counts as Record<string, unknown>).filter(
      (e): e is [string, number] => typeof e[1] === 'number' && Number.isFinite(e[1]),
    );
    if (numeric.length > 0) out[step] = Object.fromEntries(numeric);
  }
  return Object.keys(out).length > 0 ? out : null;
}

const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const str = (v: unknown) => (typeof v === 'string' ? v : null);

export function viewRun(r: RunRecord, now = Date.now()): RunView {
  const s = parseSummary(r);
  const pid = num(s.pid);
  const gone = r.status === 'running' && pid !== null && s.host === hostname() && !processAlive(pid);
  const running = r.status === 'running' && !gone;
  const end = r.finishedAt > 0 ? r.finishedAt : running ? now : null;
  return {
    runId: r.runId,
    kind: r.kind,
    name: r.name,
    status: gone ? 'interrupted' : r.status,
    ...(gone ? { recordedStatus: r.status, statusNote: 'process gone' } : {}),
    configHash: r.configHash,
    seed: r.seed,
    startedAt: new Date(r.startedAt).toISOString(),
    finishedAt: r.finishedAt > 0 ? new Date(r.finishedAt).toISOString() : null,
    durationMs: end === null ? null : Math.max(0, end - r.startedAt),
    steps: num(s.steps),
    initialAccuracy: num(s.initialAccuracy),
    finalAccuracy: num(s.finalAccuracy),
    tasksLanded: num(s.tasksOut),
    usage: usageOfSummary(s.usage),
    tokens: tokensOfSummary(s.tokens),
    runDir: str(s.runDir),
    bufferTable: str(s.bufferTable),
    error: str(s.error),
  };
}

/** Every run in `dbDir`, oldest first. */
export async function readRuns(dbDir: string): Promise<RunView[]> {
  return (await RunTable.readAll(dbDir)).map((r) => viewRun(r));
}
