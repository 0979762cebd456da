// bench/ingest: a synthetic task file through the real task pipeline (read → 5 cleaning/filter
// operators → exact dedup → LanceDB), against a baseline measured in the same run: the same file
// read, mapped and written to LanceDB with no operators. Also MinHash near-dedup throughput.
// Run: npx winnow bench ingest [--rows N] [--docs N]   (or: npx node bench/ingest.ts)
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { closeAllConnections } from '../src/buffer/connection.ts';
import { parseCommand } from '../src/cli/command-spec.ts';
import { formatTable } from '../src/cli/table.ts';
import { Rng } from '../src/core/rng.ts';
import type { Task } from '../src/core/task.ts';
import { runTaskPipeline } from '../src/lifecycle/task-pipeline.ts';
import { TaskPipelineConfigSchema } from '../src/lifecycle/task-pipeline-config.ts';
import { OperatorGraph } from '../src/operators/graph.ts';
import { buildGraph } from '../src/operators/graph-spec.ts';
import { taskOperatorRegistry } from '../src/operators/registries.ts';
import { INGEST_BENCH_SPEC } from './bench-specs.ts';

const WORDS =
  'apple basket carries dozen eggs farmer garden hours invoice jar kilometre litre market number orange price quarter ribbon sells ticket'.split(
    ' ',
  );

/** Write `rows` synthetic problems: ~4% exact duplicates (case/space variants), ~3% too short, ~1% HTML noise. */
async function writeSyntheticFile(path: string, rows: number, seed: number): Promise<void> {
  const rng = new Rng(seed);
  const out = createWriteStream(path);
  let buf = '';
  for (let i = 0; i < rows; i++) {
    const r = rng.float();
    let q: string;
    if (r < 0.04 && i > 10) {
      const j = rng.int(i);
      q = problemText(new Rng(`${seed}:${j}`))
        .toUpperCase()
        .replace(/ /g, '  ');
    } else if (r < 0.07) {
      q = 'too short';
    } else {
      q = problemText(new Rng(`${seed}:${i}`));
      if (r < 0.08) q = `<p>${q}</p>`;
    }
    buf += `${JSON.stringify({ id: `s${i}`, question: q, answer: String(rng.int(1000)) })}\n`;
    if (buf.length > 1 << 20) {
      if (!out.write(buf)) await new Promise<void>((res) => out.once('drain', () => res()));
      buf = '';
    }
  }
  out.write(buf);
  await new Promise<void>((res, rej) => out.end((err?: Error | null) => (err ? rej(err) : res())));
}

function problemText(rng: Rng): string {
  const n = 12 + rng.int(20);
  const parts: string[] = [];
  for (let k = 0; k < n; k++)
    parts.push(rng.float() < 0.2 ? String(rng.int(500)) : WORDS[rng.int(WORDS.length)]!);
  return `${parts.join(' ')}?`;
}

const CLEANING_STEPS = [
  { op: 'strip_html' },
  { op: 'normalize_unicode', params: { form: 'NFKC' } },
  { op: 'normalize_whitespace' },
  { op: 'length_filter', params: { minWords: 5, maxChars: 4000 } },
  { op: 'special_char_ratio_filter', params: { maxRatio: 0.3 } },
  { op: 'exact_dedup' },
];

interface PeakMemory {
  stop(): number;
}
function trackPeakRss(): PeakMemory {
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

async function runPipeline(file: string, dbDir: string, operators: unknown[]) {
  const config = TaskPipelineConfigSchema.parse({
    name: 'bench-ingest',
    input: { path: file },
    mapping: { id: 'id', prompt: 'question', answer: 'answer', taskset: 'bench' },
    operators,
    output: { compact: false },
  });
  const mem = trackPeakRss();
  const t0 = performance.now();
  const report = await runTaskPipeline(config, { baseDir: '.', dbDir, registry: taskOperatorRegistry() });
  const secs = (performance.now() - t0) / 1000;
  return { report, secs, peakMb: mem.stop() / 2 ** 20 };
}

async function nearDedupRate(docs: number, seed: number) {
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
  return { docs, exact, near, meanChars: tasks.reduce((s, t) => s + t.prompt!.length, 0) / tasks.length };
}

export async function ingestBenchMain(argv: string[]): Promise<number> {
  const parsed = parseCommand(INGEST_BENCH_SPEC, argv);
  if (!parsed) return 0;
  const { rows, docs, seed } = parsed.values;
  const dir = mkdtempSync(join(tmpdir(), 'winnow-bench-ingest-'));
  try {
    const file = join(dir, 'tasks.jsonl');
    process.stderr.write(`writing ${rows.toLocaleString('en-US')} synthetic rows…\n`);
    await writeSyntheticFile(file, rows, seed);
    process.stderr.write('baseline: read + map + LanceDB write, no operators…\n');
    const base = await runPipeline(file, join(dir, 'db-base'), []);
    closeAllConnections();
    process.stderr.write('pipeline: read + 5 cleaning/filter operators + exact dedup + LanceDB…\n');
    const full = await runPipeline(file, join(dir, 'db-full'), CLEANING_STEPS);
    process.stderr.write(`near-dedup on ${docs.toLocaleString('en-US')} documents…\n`);
    const nd = await nearDedupRate(docs, seed);

    const baseRate = rows / base.secs;
    const fullRate = rows / full.secs;
    process.stdout.write(
      `${formatTable(
        ['run', 'rows', 'landed', 'seconds', 'rows/s', 'ratio to baseline', 'peak RSS MB'],
        [
          [
            'baseline (no operators)',
            rows,
            base.report.tasksOut,
            base.secs,
            Math.round(baseRate),
            1,
            Math.round(base.peakMb),
          ],
          [
            '5 filters + exact dedup',
            rows,
            full.report.tasksOut,
            full.secs,
            Math.round(fullRate),
            fullRate / baseRate,
            Math.round(full.peakMb),
          ],
        ],
      )}\n\n`,
    );
    process.stdout.write(
      `${formatTable(
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
            'near_dedup (MinHash-LSH)',
            nd.docs,
            nd.near.kept,
            nd.near.secs,
            Math.round(nd.docs / nd.near.secs),
            nd.exact.secs / nd.near.secs,
          ],
        ],
      )}\n`,
    );
    process.stdout.write(
      `(mean document length ${Math.round(nd.meanChars)} chars)\n\nper-step times of the full pipeline:\n`,
    );
    process.stdout.write(
      `${formatTable(
        ['step', 'in', 'out', 'dropped', 'ms'],
        full.report.steps.map((s) => [s.step, s.rowsIn, s.rowsOut, s.dropped, Math.round(s.ms)]),
      )}\n`,
    );
    return 0;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.exitCode = await ingestBenchMain(process.argv.slice(2));
}
