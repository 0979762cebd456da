import { performance } from 'node:perf_hooks';
import type { Task } from '../core/task.ts';
import type { ColumnarForm } from '../operators/columnar/form.ts';
import {
  type GraphNode,
  type GraphOptions,
  type GraphOutput,
  OperatorGraph,
  type OpNode,
  type StepRejection,
} from '../operators/graph.ts';
import type { Drop, OperatorResult } from '../operators/operator.ts';
import { mapText } from '../operators/task/text-fields.ts';
import type { ColumnarOutput, DuckDBColumns } from './duckdb-columns.ts';

/** `String.prototype.isWellFormed` (ES2024; Node 22 has it, the lib types here stop at ES2023). */
const wellFormed = (s: string | undefined) =>
  s === undefined || (s as unknown as { isWellFormed(): boolean }).isWellFormed();

/**
 * An operator graph whose first steps (one per form in `forms`) run in the engine, a batch at a
 * time, and the rest as OperatorGraph runs them. Each engine step is accounted as the operator's
 * own result would be (rows, drops in row order with its reasons, its `changed` metric), so the
 * run's rows, rejected records and report are those of the row path. A row the engine cannot
 * treat exactly (no prompt, a lone surrogate, a character a step names in `rowWiseChars`) runs
 * that step and every later one through the operator itself, in its place in the batch.
 */
export class ColumnarGraph extends OperatorGraph<Task> {
  private readonly forms: readonly ColumnarForm[];
  private readonly engine: DuckDBColumns;

  constructor(
    nodes: readonly GraphNode<Task>[],
    opts: GraphOptions,
    forms: readonly ColumnarForm[],
    engine: DuckDBColumns,
  ) {
    super(nodes, opts);
    if (forms.length > nodes.length || nodes.slice(0, forms.length).some((n) => n.type !== 'op'))
      throw new Error('ColumnarGraph: every column-wise step must be an operator node of the graph');
    this.forms = forms;
    this.engine = engine;
  }

  override async process(batch: readonly Task[]): Promise<GraphOutput<Task>> {
    const rejected: StepRejection<Task>[] = [];
    const prefixed = await this.runPrefix(batch, rejected);
    const rows = await this.runNodes(this.nodes, this.forms.length, prefixed, rejected, false);
    return { rows, rejected };
  }

  private async runPrefix(batch: readonly Task[], rejected: StepRejection<Task>[]): Promise<Task[]> {
    if (batch.length === 0 || this.forms.length === 0) return [...batch];
    const t0 = performance.now();
    const n = batch.length;
    // Step from which each row runs row-wise (forms.length: never).
    const fallFrom = new Int32Array(n).fill(this.forms.length);
    const prompts: Array<string | null> = new Array(n);
    const answers: Array<string | null> = new Array(n);
    for (let i = 0; i < n; i++) {
      const t = batch[i]!;
      const ok = t.prompt !== undefined && wellFormed(t.prompt) && wellFormed(t.answer);
      if (!ok) fallFrom[i] = 0;
      prompts[i] = ok ? t.prompt! : null;
      answers[i] = ok ? (t.answer ?? null) : null;
    }
    const out = await this.engine.run(this.forms, prompts, answers);
    const engineMs = performance.now() - t0;
    // The rows still in play, each with its index into the batch.
    let rows: Task[] = [...batch];
    let index: number[] = rows.map((_, i) => i);
    for (let s = 0; s < this.forms.length && rows.length > 0; s++) {
      const step = await this.runStep(s, rows, index, fallFrom, out);
      const node = this.nodes[s] as OpNode<Task>;
      const ms = (s === 0 ? engineMs : 0) + step.ms;
      this.account(node, rows.length, step.result, ms, rejected);
      rows = step.result.rows;
      index = step.index;
    }
    return rows;
  }

  /** One step over the rows in play: the engine's answer for most, the operator's for the rest. */
  private async runStep(
    s: number,
    rows: readonly Task[],
    index: readonly number[],
    fallFrom: Int32Array,
    out: ColumnarOutput,
  ): Promise<{ result: OperatorResult<Task>; index: number[]; ms: number }> {
    const form = this.forms[s]!;
    const node = this.nodes[s] as OpNode<Task>;
    for (let k = 0; k < rows.length; k++) {
      const i = index[k]!;
      if (fallFrom[i]! > s && out.rowWise[s]![i]) fallFrom[i] = s;
    }
    // The operator itself, over this step's row-wise rows (in batch order).
    const t0 = performance.now();
    const own = rows.filter((_, k) => fallFrom[index[k]!]! <= s);
    const ownResult = own.length > 0 ? await node.operator.process(own, this.contexts.get(node.step)!) : null;
    const ms = performance.now() - t0;
    const ownDrops = new Map<Task, string>();
    for (const d of ownResult?.dropped ?? []) ownDrops.set(d.row, d.reason);
    const ownKept = ownResult?.rows ?? [];
    let ownAt = 0;

    const kept: Task[] = [];
    const keptIndex: number[] = [];
    const dropped: Drop<Task>[] = [];
    let changed = 0;
    for (let k = 0; k < rows.length; k++) {
      const i = index[k]!;
      const row = rows[k]!;
      if (fallFrom[i]! <= s) {
        if (form.kind === 'map') {
          // A text map returns one row per row, in order (text-fields.ts mapTextBatch).
          kept.push(ownKept[ownAt++]!);
          keptIndex.push(i);
        } else if (ownDrops.has(row)) dropped.push({ row, reason: ownDrops.get(row)! });
        else {
          kept.push(row);
          keptIndex.push(i);
        }
        continue;
      }
      if (form.kind === 'map') {
        const text = out.texts[s]![i];
        const next = text === null || text === undefined ? row : mapText(row, form.field, () => text);
        if (next !== row) changed++;
        kept.push(next);
        keptIndex.push(i);
        continue;
      }
      const reason = form.verdict(out.values[s]![i]!);
      if (reason === null) {
        kept.push(row);
        keptIndex.push(i);
      } else dropped.push({ row, reason });
    }
    const result: OperatorResult<Task> = { rows: kept, dropped };
    if (form.kind === 'map') result.metrics = { changed: changed + (ownResult?.metrics?.changed ?? 0) };
    return { result, index: keptIndex, ms };
  }
}
