// The file `bench ingest` measures when no --input is given, and its mapping: each pipeline has
// its own generated file (seeded), and the operator chain that goes with it.
import { join } from 'node:path';
import { writeQaFile } from '../engine/qa-file.ts';
import { BENCH_PIPELINES, type BenchPipeline } from './anchors.ts';
import { writeCjkFile } from './cjk-file.ts';
import { dj10Operators } from './dj10.ts';
import type { BenchMapping } from './input-mapping.ts';
import { SYNTHETIC_MAPPING, writeSyntheticFileApart } from './synthetic.ts';

/** The mapping of a pipeline's generated file. */
export function generatedMapping(pipeline: BenchPipeline): BenchMapping {
  if (pipeline === 'issue40') return { prompt: 'question', answer: 'answer' };
  if (pipeline === 'dj10') return { prompt: 'text' };
  return { ...SYNTHETIC_MAPPING };
}

/** Write the pipeline's generated file of `rows` rows into `dir`; its path. */
export async function writeGeneratedFile(
  pipeline: BenchPipeline,
  dir: string,
  rows: number,
  seed: number,
  say: (m: string) => void,
): Promise<string> {
  const n = rows.toLocaleString('en-US');
  if (pipeline === 'issue40') {
    // Issue 40's own file: question/answer rows with HTML, URLs, punctuation runs, no id column.
    const file = join(dir, 'qa.jsonl');
    say(`writing ${n} rows of issue 40's file (bench/engine/qa-file.ts)…`);
    await writeQaFile(file, rows, seed);
    return file;
  }
  if (pipeline === 'dj10') {
    const file = join(dir, 'dj10-cjk.jsonl');
    say(`writing ${n} rows of English/Chinese/Japanese crawl text (bench/ingest/cjk-file.ts)…`);
    await writeCjkFile(file, rows, seed);
    return file;
  }
  const file = join(dir, 'tasks.jsonl');
  say(`writing ${n} synthetic rows…`);
  await writeSyntheticFileApart(file, rows, seed);
  return file;
}

/** The pipeline's operator chain (dj10's is its recipe, translated against `file`). */
export function pipelineOperators(pipeline: BenchPipeline, file: string): readonly unknown[] {
  return pipeline === 'dj10' ? dj10Operators(file) : BENCH_PIPELINES[pipeline];
}

/** What the run's label calls the pipeline. */
export function pipelineLabel(pipeline: BenchPipeline): string {
  if (pipeline === 'cleaning') return '5 filters + exact dedup';
  if (pipeline === 'dj10') return 'dj10 recipe (10 Data-Juicer ops)';
  return `${pipeline} pipeline`;
}
