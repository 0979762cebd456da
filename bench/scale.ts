// `winnow bench scale`: rollout throughput through the scale-out queue with 1, 2 and 4 worker
// processes of the same concurrency, against a local OpenAI-compatible server whose every request
// takes a fixed latency. The work is latency-bound, so throughput should grow with the workers.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Queue, QueueEvents } from 'bullmq';
import { Redis } from 'ioredis';
import { parseCommand } from '../src/cli/command-spec.ts';
import { formatTable } from '../src/cli/table.ts';
import type { Task } from '../src/core/task.ts';
import { prepareRft } from '../src/lifecycle/run/rft-build.ts';
import { loadRftConfig } from '../src/lifecycle/run/rft-run.ts';
import { QueueRollouts } from '../src/scale/queue-rollouts.ts';
import { connectionOf, parseQueueUrl } from '../src/scale/queue-url.ts';
import { contextKeyOf, ROLLOUT_QUEUE, type RunContext } from '../src/scale/rollout-job.ts';
import { encodeWire } from '../src/scale/wire.ts';
import { AnswerServer } from './scale-answer-server.ts';
import { type IngestPath, ingestBench } from './scale-ingest.ts';
import { redisUnavailable, startRedis } from './scale-redis.ts';
import { SCALE_BENCH_SPEC } from './scale-spec.ts';
import { startWorkerProcesses, stopWorkerProcesses } from './scale-workers.ts';

const ROOT = join(import.meta.dirname, '..');

interface Row {
  workers: number;
  groups: number;
  rollouts: number;
  seconds: number;
  groupsPerSecond: number;
  rolloutsPerSecond: number;
  ratio: number;
  serverMaxInFlight: number;
}

function configYaml(baseUrl: string): string {
  return [
    'name: bench-scale',
    'kind: rft',
    'seed: 1',
    'tasks:',
    `  path: ${join(ROOT, 'datasets/arithmetic/train.jsonl')}`,
    '  mapping: { taskset: arithmetic, id: id, prompt: prompt, answer: answer }',
    'selector: { type: random }',
    'explorer:',
    `  model: { type: openai, params: { model: arith, baseUrl: "${baseUrl}", endpoint: completions, logprobs: false } }`,
    '  reward: math',
    '  repeat: 4',
    '  batchTasks: 8',
    'trainer: { type: export, params: { dir: ./export } }',
    'lifecycle: { mode: explore, steps: 1 }',
    'monitors: []',
    '',
  ].join('\n');
}

export async function scaleBenchMain(argv: string[]): Promise<number> {
  const parsed = parseCommand(SCALE_BENCH_SPEC, argv);
  if (!parsed) return 0;
  const o = parsed.values;
  const counts = positiveInts(o.workers, '--workers');
  const ingestCounts = positiveInts(o['ingest-workers'], '--ingest-workers');
  const simulate = positiveInts(o.simulate, '--simulate');
  const paths = o['ingest-paths'].filter((p): p is IngestPath => p === 'encoded' || p === 'json');
  if (!counts || !ingestCounts || !simulate) return 2;
  if (paths.length !== o['ingest-paths'].length || paths.length === 0) {
    process.stderr.write(
      `error: --ingest-paths: expected encoded and/or json, got ${o['ingest-paths'].join(',')}\n`,
    );
    return 2;
  }
  const missing = redisUnavailable();
  if (missing) {
    process.stderr.write(`error: ${missing}\n`);
    return 1;
  }
  const log = (line: string) => {
    if (!o.json) process.stderr.write(`${line}\n`);
  };
  const dir = mkdtempSync(join(tmpdir(), 'winnow-bench-scale-'));
  const redis = await startRedis();
  const server = new AnswerServer(o.latency);
  const client = new Redis(redis.port, '127.0.0.1');
  const url = parseQueueUrl(redis.url);
  const queue = new Queue(ROLLOUT_QUEUE, { connection: connectionOf(url) });
  const events = new QueueEvents(ROLLOUT_QUEUE, { connection: connectionOf(url) });
  const rows: Row[] = [];
  let ingest: Awaited<ReturnType<typeof ingestBench>> | null = null;
  try {
    const file = join(dir, 'bench-scale.yaml');
    writeFileSync(file, configYaml(await server.start()));
    const config = loadRftConfig(file);
    const runId = 'bench-scale-1';
    const dbDir = join(dir, 'db');
    const prepared = await prepareRft(config, {
      baseDir: dir,
      configFile: file,
      dbDir,
      runDir: dir,
      runId,
      seed: 1,
    });
    const tasks: Task[] = prepared.parts.tasks;
    const context = contextKeyOf({ dbDir, runId, startedAt: Date.now(), configHash: 'bench' });
    const ctx: RunContext = {
      runId,
      config: config as unknown as Record<string, unknown>,
      baseDir: dir,
      configFile: file,
      dbDir,
      runDir: dir,
      bufferTable: `${runId}_experiences`,
      seed: 1,
    };
    await client.set(context, encodeWire(ctx));
    await events.waitUntilReady();
    const perWorker = Math.max(
      o.concurrency,
      Math.round(((o.seconds * 1000) / Math.max(1, o.latency)) * o.concurrency),
    );
    let step = 0;
    let cursor = 0;
    const take = (n: number) => {
      const out = Array.from({ length: n }, (_, i) => tasks[(cursor + i) % tasks.length]!);
      cursor += n;
      return out;
    };
    for (const n of o['no-rollouts'] ? [] : counts) {
      const workers = await startWorkerProcesses(
        n,
        ['--queue', redis.url, '--concurrency', String(o.concurrency)],
        'worker',
      );
      try {
        const rollouts = new QueueRollouts({
          queue,
          events,
          context,
          runId,
          runDir: dir,
          maxInFlight: 100_000,
          log: () => {},
        });
        // Warm-up (untimed): every worker builds the run's parts on its first job.
        await rollouts.explore(take(2 * n * o.concurrency), ++step, 0);
        const groups = perWorker * n;
        server.maxInFlight = 0;
        const t0 = performance.now();
        const r = await rollouts.explore(take(Math.min(groups, tasks.length)), ++step, 0);
        const seconds = (performance.now() - t0) / 1000;
        const row: Row = {
          workers: n,
          groups: r.metrics.tasks,
          rollouts: r.metrics.rollouts,
          seconds,
          groupsPerSecond: r.metrics.tasks / seconds,
          rolloutsPerSecond: r.metrics.rollouts / seconds,
          ratio: 0,
          serverMaxInFlight: server.maxInFlight,
        };
        row.ratio = rows.length === 0 ? 1 : row.rolloutsPerSecond / rows[0]!.rolloutsPerSecond;
        rows.push(row);
        log(
          `${n} worker(s): ${row.rollouts} rollouts in ${seconds.toFixed(2)} s (${row.rolloutsPerSecond.toFixed(1)}/s, ×${row.ratio.toFixed(2)})`,
        );
      } finally {
        await stopWorkerProcesses(workers);
      }
    }
    prepared.parts.dispose?.();
    if (o['ingest-rows'] > 0)
      ingest = await ingestBench({
        dir,
        redisUrl: redis.url,
        redisPid: redis.pid,
        rows: o['ingest-rows'],
        workerCounts: ingestCounts,
        paths,
        simulate,
        log,
      });
  } finally {
    await events.close();
    await queue.close();
    client.disconnect();
    await server.stop();
    await redis.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  const result = {
    latencyMs: o.latency,
    concurrencyPerWorker: o.concurrency,
    rollouts: rows,
    ingest: ingest ?? { status: 'skipped (--ingest-rows 0)' },
  };
  if (o.json) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  else
    process.stdout.write(
      `${formatTable(
        ['workers', 'groups', 'rollouts', 's', 'rollouts/s', 'vs 1st', 'server in flight'],
        rows.map((r) => [
          r.workers,
          r.groups,
          r.rollouts,
          r.seconds.toFixed(2),
          r.rolloutsPerSecond.toFixed(1),
          `×${r.ratio.toFixed(2)}`,
          r.serverMaxInFlight,
        ]),
      )}\n${
        ingest
          ? `\ningest of ${ingest.rows.toLocaleString('en-US')} rows (${(ingest.inputBytes / 1e6).toFixed(1)} MB) through a task pipeline (load average ${ingest.load.map((l) => l.toFixed(1)).join(' ')} on ${cpus().length} cores):\n${formatTable(
              [
                'pipeline workers',
                'rows as',
                'shards',
                'rows',
                'tasks out',
                'rejected',
                's',
                'rows/s',
                'vs 1 worker',
                'vs one process',
                'CPU s coord (serial)/workers/redis',
                'simulated (N: vs one process)',
              ],
              ingest.runs.map((r) => [
                r.workers === 0 ? 'none (no --queue)' : r.workers,
                r.path ?? '',
                r.shards,
                r.rows,
                r.tasksOut,
                r.rejected,
                r.seconds.toFixed(2),
                Math.round(r.rowsPerSecond),
                r.workers === 0 ? '' : `×${r.ratio.toFixed(2)}`,
                `×${r.vsPlain.toFixed(2)}`,
                `${r.cpu.coordinator.toFixed(2)}${r.workers === 0 ? '' : ` (${(r.cpu.serial.before + r.cpu.serial.after).toFixed(2)})`}/${r.cpu.workers.toFixed(2)}/${r.cpu.redis.toFixed(2)}`,
                r.simulated.map((x) => `${x.workers}: ×${x.vsPlain.toFixed(2)}`).join(', '),
              ]),
            )}\n`
          : ''
      }`,
    );
  return 0;
}

/** A list flag of positive integers, or null after saying which flag is wrong (exit 2). */
function positiveInts(values: readonly string[], flag: string): number[] | null {
  const out = values.map((w) => Number(w));
  if (out.some((n) => !Number.isInteger(n) || n < 1)) {
    process.stderr.write(`error: ${flag}: expected positive integers, got ${values.join(',')}\n`);
    return null;
  }
  return out;
}
