import { performance } from 'node:perf_hooks';
import { Rng } from '../core/rng.ts';
import type { Operator, OperatorContext, OperatorResult, ProfilePass, TokenizerLoader } from './operator.ts';
import { ReasonClasses } from './reason-classes.ts';
import { addMetrics, emptyMetrics, type StepMetrics } from './step-metrics.ts';

/** A dropped row with the step that dropped it. */
export interface StepRejection<T> {
  step: string;
  row: T;
  reason: string;
}

export interface GraphOutput<T> {
  rows: T[];
  rejected: StepRejection<T>[];
}

export interface OpNode<T> {
  type: 'op';
  step: string;
  operator: Operator<T>;
}

export interface Route<T> {
  name: string;
  /** null = takes whatever no earlier route took (the `otherwise` route). */
  when: ((row: T) => boolean) | null;
  nodes: GraphNode<T>[];
}

export interface BranchNode<T> {
  type: 'branch';
  step: string;
  routes: Route<T>[];
}

export type GraphNode<T> = OpNode<T> | BranchNode<T>;

export interface GraphOptions {
  seed: number;
  runId?: string;
  onWarn?: (step: string, message: string) => void;
  /** Handed to every operator's context (see OperatorContext). */
  baseDir?: string;
  loadTokenizer?: TokenizerLoader;
  expectedRows?: () => number | undefined;
}

/**
 * Runs a chain of operators (with branches: route rows by predicate, process each route, union the
 * results) over a stream of batches. Each batch goes through the whole graph before the next is read,
 * so memory stays bounded by the batch size. Every drop is returned with its step name, and counted.
 */
export class OperatorGraph<T> {
  readonly nodes: readonly GraphNode<T>[];
  private readonly stats = new Map<string, StepMetrics>();
  protected readonly contexts = new Map<string, OperatorContext>();
  private readonly reasonClasses = new ReasonClasses();

  constructor(nodes: readonly GraphNode<T>[], opts: GraphOptions) {
    this.nodes = nodes;
    const root = new Rng(opts.seed);
    const visit = (list: readonly GraphNode<T>[]) => {
      for (const node of list) {
        if (this.stats.has(node.step))
          throw new Error(`duplicate step name '${node.step}' in operator graph`);
        if (node.type === 'op') {
          this.stats.set(node.step, emptyMetrics(node.step, node.operator.name, node.operator.kind));
          const metrics = this.stats.get(node.step)!;
          this.contexts.set(node.step, {
            rng: root.fork(node.step),
            seed: opts.seed,
            runId: opts.runId ?? '',
            ...(opts.baseDir !== undefined ? { baseDir: opts.baseDir } : {}),
            ...(opts.loadTokenizer ? { loadTokenizer: opts.loadTokenizer } : {}),
            ...(opts.expectedRows ? { expectedRows: opts.expectedRows } : {}),
            warn: (message) => {
              metrics.warnings++;
              opts.onWarn?.(node.step, message);
            },
          });
        } else {
          this.stats.set(node.step, emptyMetrics(node.step, 'branch', 'branch'));
          for (const r of node.routes) visit(r.nodes);
        }
      }
    };
    visit(nodes);
  }

  /** Push one batch through the graph. */
  async process(batch: readonly T[]): Promise<GraphOutput<T>> {
    const rejected: StepRejection<T>[] = [];
    const rows = await this.runNodes(this.nodes, 0, batch, rejected, false);
    return { rows, rejected };
  }

  /** End of stream: let operators that hold rows back emit them, and pass those down the rest of the graph. */
  async flush(): Promise<GraphOutput<T>> {
    const rejected: StepRejection<T>[] = [];
    const rows = await this.runNodes(this.nodes, 0, [], rejected, true);
    return { rows, rejected };
  }

  /**
   * The profile passes of a graph that is one chain of steps that all have one (Operator.profilePass),
   * in step order; null when a step has none or the graph branches.
   */
  profilePasses(): ProfilePass[] | null {
    const passes: ProfilePass[] = [];
    for (const node of this.nodes) {
      if (node.type !== 'op' || node.operator.profilePass === undefined) return null;
      passes.push(node.operator.profilePass);
    }
    return passes;
  }

  /**
   * Count `rows` rows that every step passed on untouched, as their profile passes judged without
   * running the steps: each step's totals grow as `process` would have grown them (not its time:
   * the reader that judged them counts that as its own).
   */
  countProfilePassed(rows: number): void {
    if (this.profilePasses() === null) throw new Error('countProfilePassed: a step has no profile pass');
    for (const node of this.nodes as readonly OpNode<T>[]) {
      const m = this.stats.get(node.step)!;
      m.rowsIn += rows;
      m.rowsOut += rows;
      if (rows > 0) addMetrics(m.extra, node.operator.profilePass!.metrics);
    }
  }

  metrics(): StepMetrics[] {
    return [...this.stats.values()].map((m) => ({ ...m, reasons: { ...m.reasons }, extra: { ...m.extra } }));
  }

  protected async runNodes(
    nodes: readonly GraphNode<T>[],
    from: number,
    batch: readonly T[],
    rejected: StepRejection<T>[],
    flushing: boolean,
  ): Promise<T[]> {
    let rows: readonly T[] = batch;
    for (let i = from; i < nodes.length; i++) {
      const node = nodes[i]!;
      if (node.type === 'op') {
        rows = await this.runOp(node, rows, rejected);
        if (flushing && node.operator.flush) {
          const tail = await this.runFlush(node, rejected);
          if (tail.length > 0) rows = [...rows, ...tail];
        }
      } else {
        rows = await this.runBranch(node, rows, rejected, flushing);
      }
    }
    return rows as T[];
  }

  protected account(
    node: OpNode<T>,
    rowsIn: number,
    result: OperatorResult<T>,
    ms: number,
    rejected: StepRejection<T>[],
  ): T[] {
    const m = this.stats.get(node.step)!;
    m.rowsIn += rowsIn;
    m.rowsOut += result.rows.length;
    m.dropped += result.dropped.length;
    m.ms += ms;
    addMetrics(m.extra, result.metrics);
    for (const d of result.dropped) {
      const reason = d.reason && d.reason.trim() !== '' ? d.reason : 'dropped (operator gave no reason)';
      const cls = this.reasonClasses.of(reason);
      m.reasons[cls] = (m.reasons[cls] ?? 0) + 1;
      rejected.push({ step: node.step, row: d.row, reason });
    }
    return result.rows;
  }

  private async runOp(node: OpNode<T>, rows: readonly T[], rejected: StepRejection<T>[]): Promise<T[]> {
    if (rows.length === 0) return [];
    const t0 = performance.now();
    const result = await node.operator.process(rows, this.contexts.get(node.step)!);
    return this.account(node, rows.length, result, performance.now() - t0, rejected);
  }

  private async runFlush(node: OpNode<T>, rejected: StepRejection<T>[]): Promise<T[]> {
    const t0 = performance.now();
    const result = await node.operator.flush!(this.contexts.get(node.step)!);
    return this.account(node, 0, result, performance.now() - t0, rejected);
  }

  private async runBranch(
    node: BranchNode<T>,
    rows: readonly T[],
    rejected: StepRejection<T>[],
    flushing: boolean,
  ): Promise<T[]> {
    const m = this.stats.get(node.step)!;
    const t0 = performance.now();
    const buckets: T[][] = node.routes.map(() => []);
    // A row no route takes passes through unchanged (the union keeps it).
    const untaken: T[] = [];
    for (const row of rows) {
      const r = node.routes.findIndex((route) => route.when === null || route.when(row));
      if (r === -1) untaken.push(row);
      else buckets[r]!.push(row);
    }
    const out: T[] = untaken;
    for (let r = 0; r < node.routes.length; r++) {
      const routeRows = await this.runNodes(node.routes[r]!.nodes, 0, buckets[r]!, rejected, flushing);
      for (const row of routeRows) out.push(row);
    }
    m.rowsIn += rows.length;
    m.rowsOut += out.length;
    m.ms += performance.now() - t0;
    return out;
  }
}
