import type { z } from 'zod';
import type { Rng } from '../core/rng.ts';
import type { Tokenizer, TokenizerSpec } from '../models/tokenizer.ts';
import type { AsciiProfile } from './ascii-profile.ts';
import type { ColumnarForm } from './columnar/form.ts';

/** Loads a model tokenizer; relative `path` specs resolve against `baseDir`. */
export type TokenizerLoader = (spec: TokenizerSpec, opts: { baseDir: string }) => Promise<Tokenizer>;

/**
 * The operator contract. An operator takes a batch of rows and returns the rows it keeps
 * (possibly changed or added) and the rows it dropped, each with a reason. It never loses a row
 * silently: the graph runner records every drop with the operator's name.
 */
export type OperatorKind = 'map' | 'filter' | 'dedup' | 'augment' | 'group';

export interface Drop<T> {
  row: T;
  reason: string;
}

export interface OperatorResult<T> {
  rows: T[];
  dropped: Drop<T>[];
  /** Extra numbers the operator wants reported (summed across batches by the runner). */
  metrics?: Record<string, number>;
}

export interface OperatorContext {
  /** This operator's own seeded stream (forked from the run seed and the operator's position). */
  rng: Rng;
  seed: number;
  runId: string;
  /** Report something odd that is not a drop (e.g. a clipped reward). */
  warn(message: string): void;
  /** The config file's folder: relative paths in params (a tokenizer folder) resolve against it (default: cwd). */
  baseDir?: string;
  /** Overrides how token-aware operators load their tokenizer (tests inject a stand-in). */
  loadTokenizer?: TokenizerLoader;
  /**
   * How many rows the run expects to read in all, as estimated so far (from the input's size and
   * the rows of what was read first); undefined while unknown. Only a hint, to size memory up front.
   */
  expectedRows?(): number | undefined;
}

export interface Operator<T> {
  readonly name: string;
  readonly kind: OperatorKind;
  process(batch: readonly T[], ctx: OperatorContext): OperatorResult<T> | Promise<OperatorResult<T>>;
  /** For operators that hold rows back across batches: emit what is left at the end of the stream. */
  flush?(ctx: OperatorContext): OperatorResult<T> | Promise<OperatorResult<T>>;
  /**
   * For a row-wise step over a task's prompt: which rows it passes on untouched, judged from the
   * prompt's ASCII profile alone. A worker reading a JSONL file uses it to keep such rows as bytes,
   * never building them as objects (pipeline-workers/jsonl-fast-rows.ts).
   */
  readonly profilePass?: ProfilePass;
}

/** See `Operator.profilePass`. */
export interface ProfilePass {
  /**
   * True only when `process` would return a task whose prompt (plain ASCII) has this profile as it
   * is: not dropped, not changed, no warning.
   */
  passes(profile: AsciiProfile): boolean;
  /** What `process` reports in `metrics` for a batch of such rows (zeros), so the step's totals match. */
  readonly metrics: Readonly<Record<string, number>>;
}

/**
 * What a registry holds: a name, a parameter schema (zod, with defaults), and a factory.
 * `create` is called once per run, so operators may keep state across batches (dedup's seen set).
 */
export interface OperatorDefinition<T, P = unknown> extends OperatorCapabilities {
  readonly name: string;
  readonly kind: OperatorKind;
  readonly description: string;
  readonly params: z.ZodType<P>;
  create(params: P): Operator<T>;
  /** The operator's column-wise form for these params, when it has one (columnar/form.ts, src/engine). */
  columnar?(params: P): ColumnarForm | null;
}

/**
 * What a task pipeline may do with an operator, declared on its definition (leave a flag out for
 * false). They decide where a step runs, so a missing flag makes a run slower, never wrong; the
 * golden table in tests/operators/capabilities.test.ts lists every built-in's flags, so a change
 * shows in review.
 */
export interface OperatorCapabilities {
  /**
   * Row-wise, and so worker-safe: a row's output depends on that row and the params only (no
   * seeded stream, no state across rows or batches, no `flush`, no injected tokenizer or model).
   * A leading run of such built-in steps runs in worker threads (pipeline-workers/row-wise-plan.ts).
   */
  readonly rowWise?: boolean;
  /**
   * Row-wise and reads and writes a task's texts only (prompt, messages, answer, through
   * text-fields.ts): a chain of these runs in a worker on the texts alone (text-job.ts). Such an
   * operator is also imported by pipeline-workers/text-only-registry.ts (a test checks the two agree).
   */
  readonly textOnly?: boolean;
  /** Calls a model server or loads a model folder (LLM, embedding, perplexity): never offline with its defaults alone. */
  readonly needsModel?: boolean;
}

/** Helper so a definition's `params` type flows into `create` without annotations. */
export function defineOperator<T, S extends z.ZodType>(
  def: {
    name: string;
    kind: OperatorKind;
    description: string;
    params: S;
    create(params: z.output<S>): Operator<T>;
    columnar?(params: z.output<S>): ColumnarForm | null;
  } & OperatorCapabilities,
): OperatorDefinition<T, z.output<S>> {
  return def as OperatorDefinition<T, z.output<S>>;
}

/**
 * Keep rows for which `test` returns null; drop the others with the returned reason.
 *
 * Make a hot `test` once per step (in `create`), not per batch: V8 holds a function's optimised
 * code only weakly once its closures are gone, so a closure made per batch (per chunk, on the
 * pipeline workers) was optimised again after every major GC — ~15 times per 1M rows for each
 * filter, ~10–40 ms of compiling each time, plus the rows it ran unoptimised meanwhile.
 */
export function filterRows<T>(batch: readonly T[], test: (row: T) => string | null): OperatorResult<T> {
  const rows: T[] = [];
  const dropped: Drop<T>[] = [];
  for (const row of batch) {
    const reason = test(row);
    if (reason === null) rows.push(row);
    else dropped.push({ row, reason });
  }
  return { rows, dropped };
}
