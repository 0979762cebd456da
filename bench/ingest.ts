// bench/ingest: a task file through the real task pipeline (read → 5 cleaning/filter operators →
// exact dedup → LanceDB), against baselines measured in the same run: the same file read, mapped
// and written to LanceDB with no operators, and (when python3 exists) a plain per-row Python
// script doing the same filters and dedup. Also MinHash near-dedup throughput.
// Run: npx winnow bench ingest [--rows N] [--input FILE --mapping prompt=col,…] [--json]
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseCommand } from '../src/cli/command-spec.ts';
import { formatTable } from '../src/cli/table.ts';
import { Rng } from '../src/core/rng.ts';
import type { Task } from '../src/core/task.ts';
import { UsageError } from '../src/core/usage-error.ts';
import { runTaskPipeline } from '../src/lifecycle/pipeline/task-pipeline.ts';
import { TaskPipelineConfigSchema } from '../src/lifecycle/pipeline/task-pipeline-config.ts';
import { OperatorGraph } from '../src/operators/graph.ts';
import { buildGraph } from '../src/operators/graph-spec.ts';
import { taskOperatorRegistry } from '../src/operators/registries.ts';
import { autoWorkers } from '../src/pipeline-workers/row-stage.ts';
import { closeAllConnections } from '../src/store/connection.ts';
import { INGEST_BENCH_SPEC } from './bench-specs.ts';
import { type Anchor, type BenchPipeline, ratioTo, runAnchors } from './ingest/anchors.ts';
import {
  generatedMapping,
  pipelineLabel,
  pipelineOperators,
  writeGeneratedFile,
} from './ingest/bench-input.ts';
import { measureFloor } from './ingest/floor.ts';
import { type BenchMapping, inferMapping } from './ingest/input-mapping.ts';
import { mainThreadCpuSecs, mainThreadSince } from './ingest/main-thread-cpu.ts';
import { nearDedupPooled } from './ingest/near-dedup-pool.ts';
import { type PythonBaseline, runPythonBaseline } from './ingest/python-baseline.ts';
import { problemText, SYNTHETIC_MAPPING } from './ingest/synthetic.ts';

type Mapping = BenchMapping;

/** `--mapping id=uid,prompt=problem` → { id: 'uid', prompt: 'problem' }. */
function parseMapping(pairs: readonly string[] | undefined): Mapping {
  if (!pairs) return { ...SYNTHETIC_MAPPING };
  const out: Record<string, string> = {};
  for (const pair of pairs) {
    const [key, column] = pair.split('=');
    if (!key || !column || !['id', 'prompt', 'answer'].includes(key))
      throw new UsageError(`--mapping: '${pair}' is not KEY=COLUMN with KEY one of id, prompt, answer`);
    out[key] = column;
  }
  if (!out.prompt) throw new UsageError('--mapping needs prompt=COLUMN');
  return out as Mapping;
}

function trackPeakRss(): { stop(): number } {
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 50);
  return {
    stop() {
      clearInterval(timer);
      return Math.max(peak, process.memoryUsage().rss);
    },
  };
}

function parseWorkers(v: string): number | 'auto' {
  if (v === 'auto') return v;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 64) throw new UsageError(`--workers: '${v}' is not auto or 0–64`);
  return n;
}

/** Share of the machine's cores the process kept busy (all its threads). */
const utilisation = (cpuSecs: number, secs: number) => cpuSecs / (secs * availableParallelism());

async function runPipeline(
  file: string,
  dbDir: string,
  mapping: Mapping,
  operators: readonly unknown[],
  workers: number | 'auto',
  engine: 'rows' | 'duckdb' = 'rows',
) {
  const config = TaskPipelineConfigSchema.parse({
    name: 'bench-ingest',
    workers,
    engine,
    runsDir: join(dbDir, 'runs'),
    input: { path: file },
    mapping: { ...mapping, taskset: 'bench' },
    operators,
    output: { compact: false, maxRejectedShare: 1 },
  });
  const mem = trackPeakRss();
  const cpu0 = process.cpuUsage();
  const main0 = mainThreadCpuSecs();
  const t0 = performance.now();
  const report = await runTaskPipeline(config, { baseDir: '.', dbDir, registry: taskOperatorRegistry() });
  const mainCpuSecs = mainThreadSince(main0);
  const secs = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  return {
    report,
    workers: report.workers ?? 0,
    secs,
    peakMb: mem.stop() / 2 ** 20,
    cpuSecs: (cpu.user + cpu.system) / 1e6,
    mainCpuSecs,
    workerCpuSecs: report.workerCpuSecs ?? [],
  };
}

async function nearDedupRate(docs: number, seed: number, workers: number) {
  const rng = new Rng(seed);
  const tasks: Task[] = [];
  for (let i = 0; i < docs; i++) {
    let text = problemText(new Rng(`nd:${seed}:${i}`));
    text = `${text} ${problemText(new Rng(`nd2:${seed}:${i}`))} ${problemText(new Rng(`nd3:${seed}:${i}`))}`;
    if (i > 0 && rng.float() < 0.1) {
      const base = tasks[rng.int(i)]!.prompt!;
      text = `${base.slice(0, base.length - 6)} extra`;
    }
    tasks.push({ id: `d${i}`, taskset: 'bench', prompt: text, features: {}, meta: {} });
  }
  const reg = taskOperatorRegistry();
  const time = async (operators: unknown[]) => {
    const g = new OperatorGraph(await buildGraph<Task>(operators, { registry: reg, baseDir: '.' }), { seed });
    const t0 = performance.now();
    let kept = 0;
    for (let i = 0; i < tasks.length; i += 8192)
      kept += (await g.process(tasks.slice(i, i + 8192))).rows.length;
    kept += (await g.flush()).rows.length;
    return { secs: (performance.now() - t0) / 1000, kept };
  };
  const exact = await time([{ op: 'exact_dedup' }]);
  const near = await time([{ op: 'near_dedup' }]);
  const run = workers > 0 ? await nearDedupPooled(tasks, { workers, seed }) : null;
  const pooled = run && { workers: run.workers, secs: run.secs, cpuSecs: run.cpuSecs, kept: run.kept };
  const samePooled = run ? run.kept === near.kept : null;
  return {
    docs,
    exact,
    near,
    pooled,
    samePooled,
    meanChars: tasks.reduce((s, t) => s + t.prompt!.length, 0) / tasks.length,
  };
}

/**
 * The wall time a run's CPU allows on this machine's cores, busy with nothing else: at least its
 * main thread's CPU, its busiest worker's, and its total CPU spread over every core. A shared
 * machine's wall times say little; this says what the run's threads would take alone.
 */
function modelWall(cpuSecs: number, mainCpuSecs: number | null, workerCpuSecs: readonly number[]): number {
  return Math.max(mainCpuSecs ?? 0, ...workerCpuSecs, cpuSecs / availableParallelism());
}

const say = (m: string) => process.stderr.write(`${m}\n`);

export async function ingestBenchMain(argv: string[]): Promise<number> {
  const parsed = parseCommand(INGEST_BENCH_SPEC, argv);
  if (!parsed) return 0;
  const { docs, seed, input, json } = parsed.values;
  if (parsed.values.mapping && !input) throw new UsageError('--mapping needs --input FILE');
  const pipeline = parsed.values.pipeline as BenchPipeline;
  const mapping =
    input && !parsed.values.mapping
      ? await inferMapping(resolve(input))
      : !input && !parsed.values.mapping
        ? generatedMapping(pipeline)
        : parseMapping(parsed.values.mapping);
  const workers = parseWorkers(parsed.values.workers);
  // The near-dedup table always compares one thread with a pool (auto size unless --workers N).
  const ndWorkers = workers === 'auto' || workers === 0 ? autoWorkers() : workers;
  const dir = mkdtempSync(join(tmpdir(), 'winnow-bench-ingest-'));
  let floorWait = 0;
  try {
    const file = input
      ? resolve(input)
      : await writeGeneratedFile(pipeline, dir, parsed.values.rows, seed, say);
    const CLEANING_STEPS = pipelineOperators(pipeline, file);
    const label = pipelineLabel(pipeline);
    const want = new Set(parsed.values.runs ?? ['floor', 'baseline', 'full', 'full-workers']);
    // The anchors are compared with both Winnow paths, the row path and the engine's, unless
    // --runs names the runs (repeated rounds may leave out the engine's slower run).
    if (parsed.values.anchor && !parsed.values.runs)
      for (const run of ['full', 'full-duckdb'] as const) want.add(run);
    type Measured = {
      label: string;
      rows: number;
      landed: number;
      secs: number;
      cpuSecs: number;
      mainCpuSecs: number | null;
      /** Per pipeline worker thread, its CPU seconds (empty without workers). */
      workerCpuSecs?: number[];
      peakMb: number;
      workers: number;
      /** Leading steps run in the column-wise engine (0: all row by row; null: no pipeline). */
      engineSteps: number | null;
    };
    const measured: Measured[] = [];
    if (want.has('floor')) {
      say('floor: the file parsed, its columns as Arrow, written to LanceDB (no mapping)…');
      const mem = trackPeakRss();
      const main0 = mainThreadCpuSecs();
      const f = await measureFloor(file, join(dir, 'db-floor'));
      measured.push({
        label: 'floor (parse → Arrow → LanceDB, no mapping)',
        rows: f.rows,
        landed: f.rows,
        secs: f.secs,
        cpuSecs: f.cpuSecs,
        mainCpuSecs: mainThreadSince(main0),
        peakMb: mem.stop() / 2 ** 20,
        workers: 0,
        engineSteps: null,
      });
      floorWait = f.writeWaitSecs;
      closeAllConnections();
    }
    const measure = async (
      label: string,
      db: string,
      ops: readonly unknown[],
      w: number | 'auto',
      engine: 'rows' | 'duckdb' = 'rows',
    ) => {
      const r = await runPipeline(file, join(dir, db), mapping, ops, w, engine);
      const { report, ...m } = r;
      measured.push({
        label,
        rows: report.rowsRead,
        landed: report.tasksOut,
        engineSteps: report.engineSteps ?? 0,
        ...m,
      });
      closeAllConnections();
      return r;
    };
    if (want.has('baseline')) {
      say('baseline: read + map + LanceDB write, no operators…');
      await measure('baseline (no operators)', 'db-base', [], workers);
    }
    let full: Awaited<ReturnType<typeof runPipeline>> | null = null;
    if (want.has('full')) {
      say(`pipeline: read + ${label} + LanceDB (workers: ${workers})…`);
      full = await measure(label, 'db-full', CLEANING_STEPS, workers);
    }
    // The same pipeline with a worker thread for the text steps and dedup hashes (text-job.ts),
    // measured in the same run so the two can be compared against one baseline.
    if (want.has('full-workers') && workers !== 'auto') {
      say('pipeline: the same, workers: auto…');
      const r = await measure(`${label}, workers: auto`, 'db-full-workers', CLEANING_STEPS, 'auto');
      full ??= r;
    }
    if (want.has('full-duckdb')) {
      say('pipeline: the same, engine: duckdb (the column-wise steps in DuckDB)…');
      await measure(`${label}, engine: duckdb`, 'db-full-duckdb', CLEANING_STEPS, 0, 'duckdb');
    }
    let py: PythonBaseline | { skipped: string } = { skipped: '--no-python' };
    let anchors: { python: Anchor; polars: Anchor } | null = null;
    if (parsed.values.anchor) {
      say(`anchors: the ${pipeline} pipeline as a per-row Python script and in Polars, on the same file…`);
      anchors = runAnchors(file, dir, mapping, pipeline);
      py = anchors.python;
    } else if (!parsed.values['no-python'] && pipeline === 'cleaning') {
      say('python: the same filters and dedup in a plain per-row script…');
      py = runPythonBaseline(file, dir, mapping);
    }
    let nd: Awaited<ReturnType<typeof nearDedupRate>> | null = null;
    if (docs > 0) {
      say(`near-dedup on ${docs.toLocaleString('en-US')} documents…`);
      nd = await nearDedupRate(docs, seed, ndWorkers);
    }

    const rows = measured[0]?.rows ?? 0;
    const pyRate = 'skipped' in py ? null : py.rows / py.seconds;
    const rateOf = (label: string) => {
      const m = measured.find((x) => x.label.startsWith(label));
      return m ? m.rows / m.secs : null;
    };
    const floorRate = rateOf('floor');
    const baseRate = rateOf('baseline');
    const ratio = (x: number, to: number | null) => (to === null ? null : x / to);
    const runs = [
      ...measured.map((m) => ({
        run: m.label,
        rows: m.rows,
        landed: m.landed,
        seconds: m.secs,
        rowsPerSec: m.rows / m.secs,
        ratioToFloor: ratio(m.rows / m.secs, floorRate),
        ratioToBaseline: ratio(m.rows / m.secs, baseRate),
        ratioToPython: ratio(m.rows / m.secs, pyRate),
        peakRssMb: m.peakMb as number | null,
        cpuSecs: m.cpuSecs,
        cpuUtilisation: utilisation(m.cpuSecs, m.secs),
        mainThreadCpuSecs: m.mainCpuSecs,
        workerCpuSecs: m.workerCpuSecs ?? [],
        modelWallSecs: modelWall(m.cpuSecs, m.mainCpuSecs, m.workerCpuSecs ?? []),
        workers: m.workers,
        engineSteps: m.engineSteps,
        ...(anchors
          ? {
              ratioToPythonAnchor: ratioTo(m.rows / m.secs, anchors.python),
              ratioToPolars: ratioTo(m.rows / m.secs, anchors.polars),
            }
          : {}),
      })),
      ...('skipped' in py
        ? []
        : [
            {
              run: `python per-row (${py.writer})`,
              rows: py.rows,
              landed: py.kept,
              seconds: py.seconds,
              rowsPerSec: pyRate!,
              ratioToFloor: ratio(pyRate!, floorRate),
              ratioToBaseline: ratio(pyRate!, baseRate),
              ratioToPython: 1,
              peakRssMb: null,
              cpuSecs: py.cpuSeconds,
              cpuUtilisation: utilisation(py.cpuSeconds, py.seconds),
              mainThreadCpuSecs: null,
              workers: 0,
              engineSteps: null,
            },
          ]),
    ];
    const steps = (full?.report.steps ?? []).map((s) => ({
      step: s.step,
      in: s.rowsIn,
      out: s.rowsOut,
      dropped: s.dropped,
      ms: Math.round(s.ms),
    }));
    if (json) {
      process.stdout.write(
        `${JSON.stringify({ file: input ? file : 'synthetic', pipeline, mapping, rows, anchors, runs, python: 'skipped' in py ? py : { ...py, rowsPerSec: pyRate }, steps, nearDedup: nd }, null, 2)}\n`,
      );
      return 0;
    }
    const fmt = (v: number | null) => (v === null ? '—' : Math.round(v));
    process.stdout.write(
      `${formatTable(
        [
          'run',
          'rows',
          'landed',
          'seconds',
          'rows/s',
          'ratio to floor',
          'ratio to baseline',
          'ratio to python',
          'peak RSS MB',
          'CPU s',
          'CPU utilisation',
          'main-thread CPU s',
          'workers',
          'rows per CPU s',
        ],
        runs.map((r) => [
          r.run,
          r.rows,
          r.landed,
          r.seconds,
          Math.round(r.rowsPerSec),
          r.ratioToFloor ?? '—',
          r.ratioToBaseline ?? '—',
          r.ratioToPython ?? '—',
          fmt(r.peakRssMb),
          r.cpuSecs,
          `${Math.round(r.cpuUtilisation * 100)}% of ${availableParallelism()}`,
          r.mainThreadCpuSecs ?? '—',
          r.workers,
          Math.round(r.rows / r.cpuSecs),
        ]),
      )}\n`,
    );
    if ('skipped' in py) process.stdout.write(`(python baseline skipped: ${py.skipped})\n`);
    if (anchors) process.stdout.write(anchorTable(anchors, runs));
    // On a shared machine wall time depends on the neighbours; CPU seconds much less.
    process.stdout.write(
      `(CPU s: user + system time of the process, all its threads; CPU utilisation: CPU s ÷ (seconds × ${availableParallelism()} cores); main-thread CPU s: the JS main thread alone, the rest ran on other threads; floor: ${floorWait.toFixed(1)} s of it waiting for LanceDB)\n`,
    );
    if (nd) {
      process.stdout.write(
        `\n${formatTable(
          ['dedup', 'docs', 'kept', 'seconds', 'docs/s', 'ratio to exact'],
          [
            [
              'exact_dedup (baseline)',
              nd.docs,
              nd.exact.kept,
              nd.exact.secs,
              Math.round(nd.docs / nd.exact.secs),
              1,
            ],
            [
              'near_dedup (MinHash-LSH), main thread',
              nd.docs,
              nd.near.kept,
              nd.near.secs,
              Math.round(nd.docs / nd.near.secs),
              nd.exact.secs / nd.near.secs,
            ],
            ...(nd.pooled
              ? [
                  [
                    `near_dedup, ${nd.pooled.workers} workers (signatures) + main (LSH)`,
                    nd.docs,
                    nd.pooled.kept,
                    nd.pooled.secs,
                    Math.round(nd.docs / nd.pooled.secs),
                    nd.exact.secs / nd.pooled.secs,
                  ],
                ]
              : []),
          ],
        )}\n(mean document length ${Math.round(nd.meanChars)} chars${nd.pooled ? `; workers keep the same rows: ${nd.samePooled ? 'yes' : 'NO'}` : ''})\n`,
      );
    }
    process.stdout.write(
      `\nper-step times of the full pipeline:\n${formatTable(
        ['step', 'in', 'out', 'dropped', 'ms'],
        steps.map((s) => [s.step, s.in, s.out, s.dropped, s.ms]),
      )}\n`,
    );
    return 0;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `--anchor`'s table: each anchor's time, and every Winnow run's speed as a ratio to it. */
function anchorTable(
  anchors: { python: Anchor; polars: Anchor },
  runs: ReadonlyArray<{ run: string; rowsPerSec: number }>,
): string {
  const named = [
    ['python per-row', anchors.python],
    ['polars', anchors.polars],
  ] as const;
  const lines = named.map(([name, a]) =>
    'skipped' in a
      ? `${name}: skipped (${a.skipped})`
      : `${name}: ${a.rows} rows, ${a.kept} kept, ${a.seconds.toFixed(1)} s`,
  );
  const table = formatTable(
    ['run', 'ratio to python per-row', 'ratio to polars'],
    runs
      .filter((r) => !r.run.startsWith('python'))
      .map((r) => [
        r.run,
        ratioTo(r.rowsPerSec, anchors.python) ?? '—',
        ratioTo(r.rowsPerSec, anchors.polars) ?? '—',
      ]),
  );
  return `\nanchors (same file, same run; ratio > 1: Winnow is faster):\n${lines.join('\n')}\n${table}\n`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.exitCode = await ingestBenchMain(process.argv.slice(2));
}
