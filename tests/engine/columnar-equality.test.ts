import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Task } from '../../src/core/task.ts';
import { ColumnarGraph } from '../../src/engine/columnar-graph.ts';
import { planColumnar } from '../../src/engine/columnar-plan.ts';
import { DuckDBColumns } from '../../src/engine/duckdb-columns.ts';
import { OperatorGraph } from '../../src/operators/graph.ts';
import type { StepSpec } from '../../src/operators/graph-spec.ts';
import { buildGraph } from '../../src/operators/graph-spec.ts';
import { taskOperatorRegistry } from '../../src/operators/registries.ts';
import { step, task } from './engine-arbitraries.ts';

// The engine's path against the row path, over random chains of the column-wise operators and
// random rows: ASCII, CJK, cased non-ASCII, every kind of whitespace, control characters, lone
// surrogates, empty and long texts. Rows, order, drops (step, row, reason) and step totals must
// be the same (only the time a step took may differ).

const registry = taskOperatorRegistry();
let engine: DuckDBColumns;
beforeAll(async () => {
  engine = await DuckDBColumns.open(1);
});
afterAll(() => engine?.close());

async function bothPaths(steps: StepSpec[], rows: Task[]) {
  const opts = { seed: 1, runId: 'r' };
  const nodes = () => buildGraph<Task>(steps, { registry, baseDir: '.' });
  const forms = planColumnar(steps, registry);
  const rowPath = new OperatorGraph<Task>(await nodes(), opts);
  const enginePath = new ColumnarGraph(await nodes(), opts, forms, engine);
  // Two batches: totals add up across batches on both paths.
  const half = Math.floor(rows.length / 2);
  const run = async (g: OperatorGraph<Task>) => {
    const a = await g.process(rows.slice(0, half));
    const b = await g.process(rows.slice(half));
    const rejected = [...a.rejected, ...b.rejected].map((r) => ({
      step: r.step,
      reason: r.reason,
      row: { ...r.row },
    }));
    const metrics = g.metrics().map((m) => ({ ...m, ms: 0 }));
    return { rows: [...a.rows, ...b.rows].map((r) => ({ ...r })), rejected, metrics };
  };
  return { forms, row: await run(rowPath), engine: await run(enginePath) };
}

const asTasks = (
  xs: Array<{ prompt?: string | undefined; answer?: string | undefined; messages?: Task['messages'] }>,
) =>
  xs.map((x, i) => {
    const t: Task = { id: `t${i}`, taskset: 's', features: {}, meta: {} };
    if (x.prompt !== undefined) t.prompt = x.prompt;
    if (x.answer !== undefined) t.answer = x.answer;
    if (x.messages !== undefined && x.prompt === undefined) t.messages = x.messages;
    return t;
  });

describe('column-wise forms run in DuckDB give the row path’s results', () => {
  it('every operator in these chains declares a column-wise form (the whole chain runs in the engine)', () => {
    const steps: StepSpec[] = [
      { op: 'normalize_whitespace', params: { newlines: 'collapse' } },
      { op: 'length_filter', params: { minChars: 10, maxChars: 2000 } },
      { op: 'special_char_ratio_filter', params: { maxRatio: 0.25 } },
      { op: 'alnum_ratio_filter', params: { minRatio: 0.5 } },
      { op: 'word_repetition_filter', params: { n: 2, maxRatio: 0.5 } },
      { op: 'exact_dedup' },
    ];
    expect(planColumnar(steps, registry).map((f) => f.kind)).toEqual([
      'map',
      'filter',
      'filter',
      'filter',
      'filter',
    ]);
    expect(planColumnar([{ op: 'normalize_whitespace', params: { field: 'all' } }], registry)).toEqual([]);
  });

  it('the issue-40 chain over a fixed batch: the same kept rows and reasons', async () => {
    const steps: StepSpec[] = [
      { op: 'normalize_whitespace', params: { newlines: 'collapse' } },
      { op: 'length_filter', params: { minChars: 10, maxChars: 2000 } },
      { op: 'special_char_ratio_filter', params: { maxRatio: 0.25 } },
      { op: 'alnum_ratio_filter', params: { minRatio: 0.5 } },
      { op: 'word_repetition_filter', params: { n: 2, maxRatio: 0.5 } },
    ];
    const rows = asTasks([
      { prompt: '  what   is\t2 plus 2?  ' },
      { prompt: 'ok?' },
      { prompt: '!!!??? ... ---- ***  a b' },
      { prompt: 'the cat the cat the cat the cat' },
      { prompt: '今天天气很好 今天天气很好 我们 学习' },
      { prompt: 'ΣΟΦΙΑ ΣΟΦΙΑ ΣΟΦΙΑ is a name' },
    ]);
    const r = await bothPaths(steps, rows);
    expect(r.engine).toEqual(r.row);
    expect(r.row.rows.map((t) => t.id)).toEqual(['t0', 't5']);
    expect(r.row.rejected.map((x) => `${x.step}: ${x.reason}`)).toEqual([
      'length_filter: too short: 3 chars < minChars 10',
      'special_char_ratio_filter: special-char ratio 0.696 > maxRatio 0.25',
      'word_repetition_filter: word 2-gram repetition ratio 1.000 > maxRatio 0.5',
      'word_repetition_filter: word 2-gram repetition ratio 0.571 > maxRatio 0.5',
    ]);
  });

  it('random chains over random and hostile rows: rows, order, drops and step totals are identical', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { minLength: 1, maxLength: 5 }),
        fc.array(task, { maxLength: 24 }),
        async (steps, xs) => {
          const r = await bothPaths(steps, asTasks(xs));
          // Every generated step has a column-wise form: the whole chain runs in the engine.
          expect(r.forms.length).toBe(steps.length);
          expect(r.engine.rows).toEqual(r.row.rows);
          expect(r.engine.rejected).toEqual(r.row.rejected);
          expect(r.engine.metrics).toEqual(r.row.metrics);
        },
      ),
      { numRuns: 150, seed: 40 },
    );
  }, 600_000);
});
