import { spawn } from 'node:child_process';
import { createWriteStream, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { opsRowText } from './ops-rows.ts';

/**
 * The end-to-end part of `bench ops`: a Data-Juicer recipe of 10 text operators run unchanged
 * through `winnow run` (a child process, as a user runs it: read JSONL → operators → LanceDB →
 * export), against the same recipe with `process: []` (read → LanceDB → export, nothing else)
 * measured in the same run. `np: 2` asks for both cores (the task pipeline's worker threads).
 */
export const BENCH_RECIPE_OPS = `  - clean_html_mapper:
  - clean_links_mapper:
  - whitespace_normalization_mapper:
  - punctuation_normalization_mapper:
  - text_length_filter:
      min_len: 10
      max_len: 100000
  - words_num_filter:
      lang: en
      tokenization: false
      min_num: 5
      max_num: 10000
  - character_repetition_filter:
      rep_len: 10
      max_ratio: 0.5
  - special_characters_filter:
      max_ratio: 0.4
  - flagged_words_filter:
      lang: en
      tokenization: false
      max_ratio: 0.01
  - document_deduplicator:
      lowercase: true
`;

function recipe(name: string, ops: string | null): string {
  return [
    `project_name: '${name}'`,
    "dataset_path: './rows.jsonl'",
    `export_path: './out/${name}.jsonl'`,
    'np: 2',
    "text_keys: 'text'",
    ops === null ? 'process: []' : `process:\n${ops}`,
    '',
  ].join('\n');
}

/** Write `rows` GSM8K-sized rows as Data-Juicer input: `text` = question, blank line, worked answer. */
export async function writeRecipeInput(dir: string, rows: number): Promise<string> {
  const file = join(dir, 'rows.jsonl');
  const out = createWriteStream(file);
  for (let i = 0; i < rows; i++) {
    const { question, answer } = opsRowText(i);
    if (!out.write(`${JSON.stringify({ text: `${question}\n\n${answer}`, id: i })}\n`))
      await new Promise<void>((r) => out.once('drain', () => r()));
  }
  await new Promise<void>((resolve, reject) =>
    out.end((err?: Error | null) => (err ? reject(err) : resolve())),
  );
  return file;
}

export interface RecipeRun {
  name: string;
  operators: number;
  rows: number;
  kept: number;
  seconds: number;
  rowsPerSecond: number;
  peakRssMB: number;
}

/** Peak RSS of a live process (VmHWM covers its worker threads), or 0 once it has exited. */
function vmHwmMB(pid: number): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** Run one recipe through the winnow CLI in `dir`; the run must succeed. */
async function runRecipe(dir: string, name: string, ops: string | null, rows: number): Promise<RecipeRun> {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(file, recipe(name, ops));
  const bin = join(import.meta.dirname, '..', 'bin', 'winnow.js');
  const t0 = performance.now();
  const child = spawn(
    process.execPath,
    [bin, 'run', file, '--db', join(dir, `db-${name}`), '--json', '--overwrite-export'],
    { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => {
    stdout += d.toString();
  });
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  let peak = 0;
  const poll = setInterval(() => {
    peak = Math.max(peak, vmHwmMB(child.pid ?? 0));
  }, 50);
  const code = await new Promise<number>((resolve) => child.on('close', (c) => resolve(c ?? -1)));
  clearInterval(poll);
  const seconds = (performance.now() - t0) / 1000;
  if (code !== 0)
    throw new Error(`winnow run ${name}.yaml exited ${code}: ${stderr.trim().split('\n').pop() ?? ''}`);
  const report = (JSON.parse(stdout) as { report: { tasksOut: number } }).report;
  return {
    name,
    operators: ops === null ? 0 : (ops.match(/^ {2}- /gm) ?? []).length,
    rows,
    kept: report.tasksOut,
    seconds,
    rowsPerSecond: rows / seconds,
    peakRssMB: peak,
  };
}

/** The baseline (no operators), then the 10-operator recipe, over the same input file. */
export async function benchRecipe(
  dir: string,
  rows: number,
): Promise<{ baseline: RecipeRun; recipe: RecipeRun }> {
  await writeRecipeInput(dir, rows);
  const baseline = await runRecipe(dir, 'no-op', null, rows);
  const recipeRun = await runRecipe(dir, 'recipe-10-ops', BENCH_RECIPE_OPS, rows);
  return { baseline, recipe: recipeRun };
}
