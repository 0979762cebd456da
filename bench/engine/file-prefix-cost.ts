// The ceiling of the engine's file-reading path on issue 40's pipeline: DuckDB reads the JSONL
// file itself (bench/engine/duckdb-file-prefix.ts), runs the five column-wise steps in one query,
// each line's fate is decided with the operators' verdicts, and the kept rows' texts are built
// into Arrow vectors column-wise, ready for a LanceDB write. Not counted (so the real path can
// only cost more): the lines left to the row path, exact dedup, the report, the write itself.
// Prints one JSON line with the counts and this process's CPU seconds; run it under
// `/usr/bin/time -v` for peak RSS.
// Run: node bench/engine/file-prefix-cost.ts FILE.jsonl [THREADS]
import { DuckDBInstance } from '@duckdb/node-api';
import { Utf8, vectorFromArray } from 'apache-arrow';
import { planColumnar } from '../../src/engine/columnar-plan.ts';
import { taskOperatorRegistry } from '../../src/operators/registries.ts';
import { BENCH_PIPELINES } from '../ingest/anchors.ts';
import { scanJsonlPrefix } from './duckdb-file-prefix.ts';

const [file, threads] = process.argv.slice(2);
if (!file) throw new Error('usage: node bench/engine/file-prefix-cost.ts FILE.jsonl [THREADS]');
const cpu0 = process.cpuUsage();
const t0 = performance.now();
const forms = planColumnar(BENCH_PIPELINES.issue40, taskOperatorRegistry());
const db = await DuckDBInstance.create(':memory:', { threads: threads ?? '2' });
const con = await db.connect();
const counts = { lines: 0, kept: 0, dropped: 0, rowPath: 0, arrowBytes: 0 };
for await (const chunk of scanJsonlPrefix(
  con,
  forms,
  file,
  { prompt: 'question', answer: 'answer' },
  { maxLineBytes: 8 << 20, maxDepth: 64 },
)) {
  const prompts: string[] = [];
  const answers: Array<string | null> = [];
  for (const fate of chunk.fates) {
    counts.lines++;
    if (fate.fate === 'kept') {
      counts.kept++;
      prompts.push(fate.prompt);
      answers.push(fate.answer);
    } else if (fate.fate === 'dropped') counts.dropped++;
    else counts.rowPath++;
  }
  const p = vectorFromArray(prompts, new Utf8());
  const a = vectorFromArray(answers, new Utf8());
  counts.arrowBytes += p.data[0]!.values.byteLength + a.data[0]!.values.byteLength;
}
const cpu = process.cpuUsage(cpu0);
console.log(
  JSON.stringify({
    steps: forms.length,
    ...counts,
    wallSecs: (performance.now() - t0) / 1000,
    cpuSecs: (cpu.user + cpu.system) / 1e6,
  }),
);
con.closeSync();
db.closeSync();
