// bench/ops: documents/s of every task operator on GSM8K-sized rows (bench/ops-rows.ts), each
// against a no-op operator measured in the same run through the same harness; a 10-operator
// Data-Juicer recipe end to end through `winnow run` against the same recipe with no operators;
// language_id_filter's accuracy on the shipped labelled samples, with its speed. Peak RSS of
// every measurement. Operators run in child processes (bench/ops-shard.ts): two shards at once
// for the row-wise ones (both cores), one for the stateful ones (as in a pipeline).
// Run: npx winnow bench ops [--rows 1000000] [--ops a,b] [--recipe-rows N] [--json]

import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseCommand, unknownName } from '../src/cli/command-spec.ts';
import { formatTable } from '../src/cli/table.ts';
import { UsageError } from '../src/core/usage-error.ts';
import { buildTinyLm, writeCharNgram } from '../src/models/char-ngram-build.ts';
import { writeTinyEmbedder } from '../src/models/embedding-tiny.ts';
import { OPS_BENCH_SPEC } from './bench-specs.ts';
import { type LangidAccuracy, langidAccuracy, readLangidSamples } from './ops-langid.ts';
import { OpsLlmServer } from './ops-llm-server.ts';
import { NOT_MEASURED, type OpPlan, opsPlan } from './ops-plan.ts';
import { benchRecipe, type RecipeRun } from './ops-recipe.ts';
import { meanRowChars } from './ops-rows.ts';
import { NOOP, type ShardResult, type ShardSpec } from './ops-shard.ts';

const ROOT = join(import.meta.dirname, '..');
const SHARD = join(import.meta.dirname, 'ops-shard.ts');

export interface OpMeasure {
  op: string;
  threads: number;
  rows: number;
  kept: number;
  dropped: number;
  /** Wall seconds of the slowest shard (the shards run at the same time). */
  seconds: number;
  docsPerSecond: number;
  /** docs/s ÷ the no-op's docs/s: the share of the harness's (row generation's) speed left. */
  ratioToBaseline: number;
  /** Sum of the concurrent shards' peak RSS. */
  peakRssMB: number;
}

export interface OpsBenchResult {
  rows: number;
  meanRowChars: number;
  batch: number;
  cpus: number;
  baseline: OpMeasure;
  operators: OpMeasure[];
  notMeasured: { op: string; why: string }[];
  recipe: { baseline: RecipeRun; recipe: RecipeRun; ratioToBaseline: number } | null;
  langid: LangidAccuracy;
  peakRssMB: number;
}

function runShard(spec: ShardSpec): Promise<ShardResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SHARD, JSON.stringify(spec)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      err += d.toString();
    });
    child.on('close', (code) => {
      if (code === 0) resolve(JSON.parse(out.trim().split('\n').pop()!) as ShardResult);
      else
        reject(
          new Error(`${spec.op}: shard exited ${code}: ${err.trim().split('\n').slice(-3).join(' | ')}`),
        );
    });
  });
}

async function measure(plan: OpPlan, rows: number, o: { seed: number; batch: number; baseDir: string }) {
  const cut = Array.from({ length: plan.shards + 1 }, (_, i) => Math.round((rows * i) / plan.shards));
  const shards = await Promise.all(
    cut.slice(0, -1).map((from, i) =>
      runShard({
        op: plan.op,
        params: plan.params,
        ...(plan.prepare ? { prepare: plan.prepare } : {}),
        from,
        to: cut[i + 1]!,
        ...o,
      }),
    ),
  );
  const seconds = Math.max(...shards.map((s) => s.seconds));
  return {
    op: plan.op,
    threads: plan.shards,
    rows,
    kept: shards.reduce((s, r) => s + r.kept, 0),
    dropped: shards.reduce((s, r) => s + r.dropped, 0),
    seconds,
    docsPerSecond: rows / seconds,
    ratioToBaseline: 0,
    peakRssMB: shards.reduce((s, r) => s + r.maxRssMB, 0),
  };
}

export async function runOpsBench(o: {
  rows: number;
  ops?: readonly string[];
  /** Rows for the model-backed operators (tokenizer, language detector, language model). */
  modelRows: number;
  recipeRows: number;
  batch: number;
  seed: number;
  log?: (line: string) => void;
}): Promise<OpsBenchResult> {
  const log = o.log ?? (() => {});
  const dir = mkdtempSync(join(tmpdir(), 'winnow-bench-ops-'));
  const llmServer = new OpsLlmServer();
  try {
    mkdirSync(join(dir, '.winnow', 'models'), { recursive: true });
    writeCharNgram(join(dir, '.winnow', 'models', 'char-lm-en.json'), buildTinyLm({ languages: ['en'] }));
    writeTinyEmbedder(join(dir, '.winnow', 'models', 'tiny-embedder'));
    const llmUrl = await llmServer.start();
    const plan = opsPlan(ROOT, o.ops, llmUrl);
    const at = { seed: o.seed, batch: o.batch, baseDir: dir };
    log(`no-op baseline, ${o.rows.toLocaleString('en-US')} rows, 2 shards…`);
    const baseline = await measure({ op: NOOP, params: {}, shards: 2, model: false }, o.rows, at);
    baseline.ratioToBaseline = 1;
    const operators: OpMeasure[] = [];
    for (const p of plan) {
      log(
        `${p.op} (${p.shards} thread${p.shards > 1 ? 's' : ''}, ${p.model ? 'model-backed' : 'all rows'})…`,
      );
      const m = await measure(p, p.model ? Math.min(o.rows, o.modelRows) : o.rows, at);
      m.ratioToBaseline = m.docsPerSecond / baseline.docsPerSecond;
      operators.push(m);
    }
    let recipe: OpsBenchResult['recipe'] = null;
    if (o.recipeRows > 0) {
      log(
        `Data-Juicer recipe (10 operators) and its no-op twin through winnow run, ${o.recipeRows.toLocaleString('en-US')} rows…`,
      );
      const r = await benchRecipe(join(dir), o.recipeRows);
      recipe = { ...r, ratioToBaseline: r.recipe.rowsPerSecond / r.baseline.rowsPerSecond };
    }
    log('language identification on the labelled samples…');
    const langid = await langidAccuracy(readLangidSamples());
    const peaks = [baseline, ...operators].map((m) => m.peakRssMB);
    if (recipe) peaks.push(recipe.baseline.peakRssMB, recipe.recipe.peakRssMB);
    return {
      rows: o.rows,
      meanRowChars: meanRowChars(),
      batch: o.batch,
      cpus: (await import('node:os')).availableParallelism(),
      baseline,
      operators,
      notMeasured: Object.entries(NOT_MEASURED)
        .filter(([op]) => !o.ops?.length || o.ops.includes(op))
        .map(([op, why]) => ({ op, why })),
      recipe,
      langid,
      peakRssMB: Math.max(...peaks, process.resourceUsage().maxRSS / 1024),
    };
  } finally {
    await llmServer.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const fixed = (x: number, d = 2) => x.toFixed(d);
const int = (x: number) => Math.round(x);

export function formatOpsBench(r: OpsBenchResult): string {
  const head = `bench ops: ${r.rows.toLocaleString('en-US')} GSM8K-sized rows (mean ${int(r.meanRowChars)} characters), batches of ${r.batch}, ${r.cpus} CPUs\n`;
  const ops = formatTable(
    ['operator', 'threads', 'rows', 'docs/s', 'vs no-op', 'kept', 'dropped', 'seconds', 'peak RSS MB'],
    [r.baseline, ...r.operators].map((m) => [
      m.op === NOOP ? 'no-op (baseline)' : m.op,
      m.threads,
      m.rows,
      int(m.docsPerSecond),
      `${fixed(m.ratioToBaseline, 3)}×`,
      m.kept,
      m.dropped,
      fixed(m.seconds),
      int(m.peakRssMB),
    ]),
  );
  const skipped = r.notMeasured.map((n) => `  not measured: ${n.op}: ${n.why}`).join('\n');
  const recipe = r.recipe
    ? `\n${formatTable(
        [
          'winnow run (Data-Juicer recipe, np: 2)',
          'operators',
          'rows',
          'kept',
          'rows/s',
          'vs no-op',
          'seconds',
          'peak RSS MB',
        ],
        [r.recipe.baseline, r.recipe.recipe].map((x) => [
          x.name,
          x.operators,
          x.rows,
          x.kept,
          int(x.rowsPerSecond),
          `${fixed(x.rowsPerSecond / r.recipe!.baseline.rowsPerSecond, 3)}×`,
          fixed(x.seconds),
          int(x.peakRssMB),
        ]),
      )}\n`
    : '';
  const l = r.langid;
  const langid = `\nlanguage_id_filter (ELD medium) on ${l.samples} labelled texts, ${l.languages} languages: accuracy ${fixed(l.accuracy, 3)} (short ${fixed(l.short.accuracy, 3)} of ${l.short.samples}, long ${fixed(l.long.accuracy, 3)} of ${l.long.samples}), ${int(l.textsPerSecond)} texts/s on one thread\n${formatTable(
    ['language', 'texts', 'correct', 'accuracy', 'misread as'],
    l.perLanguage.map((p) => [p.lang, p.samples, p.correct, fixed(p.accuracy, 2), p.misread.join(' ')]),
  )}\n`;
  return `${head}${ops}\n${skipped}\n${recipe}${langid}peak RSS of any measurement: ${int(r.peakRssMB)} MB\n`;
}

export async function opsBenchMain(argv: string[]): Promise<number> {
  const parsed = parseCommand(OPS_BENCH_SPEC, argv);
  if (!parsed) return 0;
  const { values } = parsed;
  const known = opsPlan(ROOT).map((p) => p.op);
  const ops = values.ops ?? [];
  for (const op of ops)
    if (!known.includes(op))
      throw new UsageError(
        `--ops: ${unknownName('operator', op, known, `measurable: ${known.join(', ')}`)}${op in NOT_MEASURED ? ` (${op} is not measured: ${NOT_MEASURED[op]})` : ''}`,
      );
  const result = await runOpsBench({
    rows: values.rows,
    ops,
    modelRows: values['model-rows'],
    recipeRows: values['recipe-rows'] ?? values.rows,
    batch: values.batch,
    seed: values.seed,
    log: (line) => process.stderr.write(`${line}\n`),
  });
  process.stdout.write(values.json ? `${JSON.stringify(result, null, 2)}\n` : formatOpsBench(result));
  return 0;
}
