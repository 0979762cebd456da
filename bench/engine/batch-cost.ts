// What one batch costs on the engine's path against the row path: the first N rows of a
// {question, answer} JSONL file through issue 40's five text steps, each way, a few times.
// Run: node bench/engine/batch-cost.ts FILE.jsonl [ROWS]
import { readFileSync } from 'node:fs';
import type { Task } from '../../src/core/task.ts';
import { ColumnarGraph } from '../../src/engine/columnar-graph.ts';
import { planColumnar } from '../../src/engine/columnar-plan.ts';
import { DuckDBColumns } from '../../src/engine/duckdb-columns.ts';
import { OperatorGraph } from '../../src/operators/graph.ts';
import { buildGraph } from '../../src/operators/graph-spec.ts';
import { taskOperatorRegistry } from '../../src/operators/registries.ts';
import { BENCH_PIPELINES } from '../ingest/anchors.ts';

const [file, rowsArg] = process.argv.slice(2);
if (!file) throw new Error('usage: node bench/engine/batch-cost.ts FILE.jsonl [ROWS]');
const n = Number(rowsArg ?? 8192);
const tasks: Task[] = readFileSync(file, 'utf8')
  .split('\n')
  .slice(0, n)
  .map((l, i) => ({
    id: `t${i}`,
    taskset: 'q',
    prompt: JSON.parse(l).question as string,
    features: {},
    meta: {},
  }));
const steps = BENCH_PIPELINES.issue40.slice(0, 5);
const registry = taskOperatorRegistry();
const engine = await DuckDBColumns.open();
const build = async () => buildGraph<Task>(steps, { registry, baseDir: '.' });
const graphs = {
  rows: new OperatorGraph<Task>(await build(), { seed: 1 }),
  duckdb: new ColumnarGraph(await build(), { seed: 1 }, planColumnar(steps, registry), engine),
};
for (let rep = 0; rep < 3; rep++)
  for (const [name, g] of Object.entries(graphs)) {
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    const out = await g.process(tasks.map((t) => ({ ...t })));
    const c = process.cpuUsage(c0);
    console.log(
      JSON.stringify({
        path: name,
        rows: n,
        kept: out.rows.length,
        ms: Math.round(performance.now() - t0),
        cpuMs: Math.round((c.user + c.system) / 1000),
      }),
    );
  }
engine.close();
