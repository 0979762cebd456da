// The ingest half of `winnow bench scale`: one task pipeline (read, map, four row-wise cleaning
// operators, exact dedup, write) over a generated JSONL of N rows, with its shards going to 1 and
// then 2 `winnow worker --role pipeline` processes; the coordinator is this process.
import type { ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync, statSync, writeSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Rng } from '../src/core/rng.ts';
import { runTaskPipeline } from '../src/lifecycle/pipeline/task-pipeline.ts';
import { TaskPipelineConfigSchema } from '../src/lifecycle/pipeline/task-pipeline-config.ts';
import { taskOperatorRegistry } from '../src/operators/registries.ts';
import { queuedInputStream, type ShardRecord } from '../src/scale/pipeline-coordinator.ts';
import { parseQueueUrl } from '../src/scale/queue-url.ts';
import { startWorkerProcesses, stopWorkerProcesses } from './scale-workers.ts';

/** How queued workers hand rows to the coordinator: encoded in the table's layout, or as JSON (the chain then runs there). */
export type IngestPath = 'encoded' | 'json';

export interface IngestRow {
  /** Pipeline worker processes; 0: the same pipeline without --queue, in one process (the baseline). */
  workers: number;
  /** null for the single-process run. */
  path: IngestPath | null;
  rows: number;
  shards: number;
  tasksOut: number;
  rejected: number;
  seconds: number;
  rowsPerSecond: number;
  /** Rows per second against the first worker count's, measured in the same run. */
  ratio: number;
  /** Rows per second against the single-process run (no queue) measured in the same run. */
  vsPlain: number;
  /**
   * CPU seconds of the coordinator (this process, every thread: LanceDB's and V8's too), the workers
   * together, and redis-server, during the timed run; `serial`: the coordinator's part before it
   * queued the first shard (opening tables, cutting shards) and after it landed the last one (the
   * last commit, compaction, the run record), which no worker overlaps.
   */
  cpu: { coordinator: number; serial: { before: number; after: number }; workers: number; redis: number };
  /**
   * Each count of `simulate` as if every process had a core of its own (this machine's cores are
   * shared): see `simulateWorkers`; `vsPlain` divides the single-process run's CPU seconds by it
   * (its own time on a free core).
   */
  simulated: Array<{ workers: number; seconds: number; vsPlain: number }>;
}

/**
 * The CPU-seconds model of `IngestRow.simulated`: a queued run's parts on cores of their own. The
 * coordinator's serial parts run alone; in between it lands shards while the workers clean the
 * next ones, so that stretch takes the longest of: one shard's worker time (the first result) plus
 * all of the coordinator's landing; the workers' CPU shared by N plus the landing of the last shard;
 * redis-server's CPU. Redis round trips and memory bandwidth are not in it.
 */
export function simulateWorkers(
  cpu: IngestRow['cpu'],
  shards: number,
  plainCpu: number,
  counts: readonly number[],
): IngestRow['simulated'] {
  const per = Math.max(1, shards);
  const { before, after } = cpu.serial;
  const landing = Math.max(0, cpu.coordinator - before - after);
  return counts.map((n) => {
    const overlapped = Math.max(cpu.workers / per + landing, cpu.workers / n + landing / per, cpu.redis);
    const seconds = before + overlapped + after;
    return { workers: n, seconds, vsPlain: seconds > 0 ? plainCpu / seconds : 0 };
  });
}

function cpuOf(u: NodeJS.CpuUsage): number {
  return (u.user + u.system) / 1e6;
}

/** User + system CPU seconds of a process so far (Linux /proc; 0 where unreadable). */
function cpuSecondsOf(pid: number | undefined): number {
  if (pid === undefined) return 0;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime (fields 14 and 15 of stat(5)), in clock ticks of 1/100 s on Linux.
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

const WORDS =
  'apple basket dozen eggs farmer garden hours invoice market number orange price ribbon sold total weeks'.split(
    ' ',
  );

/** GSM8K-sized rows (~300 bytes): 3% exact repeats, 2% too short, 2% with HTML, 0.1% unreadable. */
export function writeIngestInput(file: string, rows: number): number {
  const rng = new Rng(5);
  const fd = openSync(file, 'w');
  const recent: string[] = [];
  let chunk: string[] = [];
  for (let i = 0; i < rows; i++) {
    const r = rng.float();
    let q: string;
    if (r < 0.03 && recent.length > 0) q = recent[rng.int(recent.length)]!;
    else if (r < 0.05) q = 'too short';
    else {
      q = Array.from({ length: 40 + rng.int(20) }, () => WORDS[rng.int(WORDS.length)]!).join(' ');
      if (r < 0.07) q = `<p>${q}</p>`;
    }
    if (recent.length < 1000) recent.push(q);
    else recent[rng.int(1000)] = q;
    chunk.push(
      r > 0.999 ? '{"not json' : JSON.stringify({ id: `r${i}`, question: q, answer: String(i % 97) }),
    );
    if (chunk.length === 10_000) {
      writeSync(fd, `${chunk.join('\n')}\n`);
      chunk = [];
    }
  }
  if (chunk.length > 0) writeSync(fd, `${chunk.join('\n')}\n`);
  closeSync(fd);
  return statSync(file).size;
}

export async function ingestOnce(
  dir: string,
  name: string,
  file: string,
  redisUrl: string | undefined,
  shardBytes: number,
  path: IngestPath,
  onPhase?: (phase: 'shards' | 'landed') => void,
) {
  const db = join(dir, `ingest-db-${name}`);
  const config = TaskPipelineConfigSchema.parse({
    name: 'bench-scale-ingest',
    input: { path: file },
    mapping: { id: 'id', prompt: 'question', answer: 'answer', taskset: 'bench' },
    operators: [
      { op: 'strip_html' },
      { op: 'normalize_whitespace' },
      { op: 'length_filter', params: { minWords: 5 } },
      { op: 'special_char_ratio_filter', params: { maxRatio: 0.2 } },
      // Checking ids (the default) makes exact_dedup the only step after the row-wise ones: queued
      // workers then encode their rows. Without it the writer checks ids and rows come as JSON.
      path === 'encoded' ? { op: 'exact_dedup' } : { op: 'exact_dedup', params: { checkIds: false } },
    ],
    output: { maxRejectedShare: 1, report: false },
  });
  const shards: ShardRecord[] = [];
  const t0 = performance.now();
  const report = await runTaskPipeline(config, {
    baseDir: dir,
    dbDir: db,
    runsDir: join(dir, 'runs'),
    registry: taskOperatorRegistry(),
    ...(redisUrl
      ? {
          inputStream: queuedInputStream(
            {
              url: parseQueueUrl(redisUrl),
              shardBytes,
              window: 8,
              leaseTtlMs: 30_000,
              log: () => {},
              ...(onPhase ? { onPhase } : {}),
            },
            shards,
          ),
        }
      : {}),
  });
  return { report, shards, seconds: (performance.now() - t0) / 1000 };
}

/**
 * Ingest `rows` rows without the queue (one process), then with each worker count in turn (after
 * an untimed warm-up per count), recording each process's CPU seconds.
 */
export async function ingestBench(o: {
  dir: string;
  redisUrl: string;
  redisPid?: number | undefined;
  rows: number;
  workerCounts: readonly number[];
  paths: readonly IngestPath[];
  /** Worker counts to simulate from each queued run's CPU seconds (IngestRow.simulated). */
  simulate: readonly number[];
  log: (line: string) => void;
}): Promise<{ rows: number; inputBytes: number; shardBytes: number; load: number[]; runs: IngestRow[] }> {
  const file = join(o.dir, 'ingest.jsonl');
  const inputBytes = writeIngestInput(file, o.rows);
  const warm = join(o.dir, 'warm.jsonl');
  writeIngestInput(warm, 2000);
  // About 32 shards, 64 KiB at least: enough for two workers to share evenly.
  const shardBytes = Math.max(64 * 1024, Math.ceil(inputBytes / 32));
  o.log(
    `ingest: ${o.rows.toLocaleString('en-US')} rows, ${(inputBytes / 1e6).toFixed(1)} MB, shards of ${shardBytes} bytes`,
  );
  const runs: IngestRow[] = [];
  let plainRate = 0;
  let plainCpu = 0;
  const load = loadavg();
  const measure = async (n: number, workers: ChildProcess[], path: IngestPath) => {
    const pids = workers.map((w) => w.pid);
    const w0 = pids.reduce((t: number, p) => t + cpuSecondsOf(p), 0);
    const r0 = cpuSecondsOf(o.redisPid);
    const c0 = process.cpuUsage();
    const at: Partial<Record<'shards' | 'landed', number>> = {};
    const r = await ingestOnce(
      o.dir,
      `w${n}-${path}`,
      file,
      n === 0 ? undefined : o.redisUrl,
      shardBytes,
      path,
      (phase) => {
        at[phase] = cpuOf(process.cpuUsage(c0));
      },
    );
    const coordinator = cpuOf(process.cpuUsage(c0));
    const row: IngestRow = {
      workers: n,
      path: n === 0 ? null : path,
      rows: r.report.rowsRead,
      shards: n === 0 ? 0 : r.shards.length,
      tasksOut: r.report.tasksOut,
      rejected: r.report.rejected,
      seconds: r.seconds,
      rowsPerSecond: r.report.rowsRead / r.seconds,
      ratio: 1,
      vsPlain: 1,
      simulated: [],
      cpu: {
        coordinator,
        serial: { before: at.shards ?? 0, after: at.landed === undefined ? 0 : coordinator - at.landed },
        workers: pids.reduce((t: number, p) => t + cpuSecondsOf(p), 0) - w0,
        redis: n === 0 ? 0 : cpuSecondsOf(o.redisPid) - r0,
      },
    };
    if (n === 0) {
      plainRate = row.rowsPerSecond;
      plainCpu = row.cpu.coordinator;
    } else row.simulated = simulateWorkers(row.cpu, row.shards, plainCpu, o.simulate);
    const first = runs.find((x) => x.workers > 0 && x.path === row.path);
    row.ratio = n === 0 || !first ? 1 : row.rowsPerSecond / first.rowsPerSecond;
    row.vsPlain = plainRate > 0 ? row.rowsPerSecond / plainRate : 1;
    runs.push(row);
    o.log(
      `ingest, ${n === 0 ? 'one process, no queue' : `${n} pipeline worker(s), rows ${path}`}: ${row.rows} rows in ${row.seconds.toFixed(2)} s (${Math.round(row.rowsPerSecond)}/s, ×${row.ratio.toFixed(2)}, ×${row.vsPlain.toFixed(2)} of one process; CPU s: coordinator ${row.cpu.coordinator.toFixed(1)}, workers ${row.cpu.workers.toFixed(1)}, redis ${row.cpu.redis.toFixed(1)})`,
    );
  };
  await ingestOnce(o.dir, 'warm-0', warm, undefined, 16 * 1024, 'encoded');
  await measure(0, [], 'encoded');
  for (const path of o.paths)
    for (const n of o.workerCounts) {
      const workers = await startWorkerProcesses(
        n,
        ['--queue', o.redisUrl, '--role', 'pipeline', '--concurrency', '1'],
        'pipeline worker',
      );
      try {
        await ingestOnce(o.dir, `warm-${n}-${path}`, warm, o.redisUrl, 16 * 1024, path);
        await measure(n, workers, path);
      } finally {
        await stopWorkerProcesses(workers);
      }
    }
  return { rows: o.rows, inputBytes, shardBytes, load, runs };
}
