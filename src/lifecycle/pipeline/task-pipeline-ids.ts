import type { Registry } from '../../core/registry.ts';
import type { Task } from '../../core/task.ts';
import type { StepSpec } from '../../operators/graph-spec.ts';
import type { OperatorDefinition } from '../../operators/operator.ts';
import { taskOperatorRegistry } from '../../operators/registries.ts';
import { StringKeySet } from '../../operators/task/exact-dedup-keys.ts';

/**
 * True when the chain ends with the built-in `exact_dedup` checking ids (its default): every row
 * that reaches the writer was kept by it, and it drops any id it kept before, so the writer's own
 * duplicate-id check can never fire and need not hold a second set of every id (~25 bytes a row).
 * Only for a plain top-level last step with nothing between it and the writer (no afterTaskOps hook).
 */
export function chainChecksIds(
  operators: readonly StepSpec[],
  registry: Registry<OperatorDefinition<Task, unknown>> | undefined,
): boolean {
  return lastExactDedup(operators, registry)?.checkIds === true;
}

/**
 * The chain's last step when it is the built-in `exact_dedup` (a plain top-level step), with
 * whether it checks ids; null for any other last step.
 */
export function lastExactDedup(
  operators: readonly StepSpec[],
  registry: Registry<OperatorDefinition<Task, unknown>> | undefined,
): { checkIds: boolean } | null {
  const last = operators[operators.length - 1];
  if (!last || !('op' in last) || last.op !== 'exact_dedup') return null;
  const builtIn = taskOperatorRegistry().get('exact_dedup');
  if (!registry?.has('exact_dedup') || registry.get('exact_dedup') !== builtIn) return null;
  return { checkIds: last.params?.checkIds !== false };
}

/**
 * The ids a pipeline run has landed, each with where it came from, so a repeated id is rejected
 * naming the first row. Held in typed arrays (see exact-dedup-keys.ts): a million ids in a `Map`
 * made every full GC of the run walk them, and the run's time grow faster than its rows.
 *
 * Sources are kept as runs, not per id: rows land in read order, so consecutive ids mostly come
 * from consecutive rows of one file, and a run (first slot, file, first row) stands for all of them.
 * Per-id arrays of file and row took 8 bytes an id (~130 MB at 10M rows, with growth room); runs
 * take 12 bytes per break (a rejected row, a new file), ~1 byte an id on typical data.
 */
export class LandedIds {
  private readonly ids = new StringKeySet();
  private readonly files: string[] = [];
  private readonly fileIndex = new Map<string, number>();
  private runs = 0;
  /** Per run: its first slot (ascending), its file (index into `files`, −1: generated rows), its first row. */
  private runSlot = new Uint32Array(1 << 8);
  private runFile = new Int32Array(1 << 8);
  private runRow = new Uint32Array(1 << 8);
  /** The file and row the last landed id came from (−1, −1 before the first). */
  private lastFile = -2;
  private lastRow = -1;

  /** Record `task`'s id; if it was landed before, where the first one came from (null: a generated row). */
  add(task: Task): { first: Task['source'] | null } | undefined {
    return this.addId(task.id, task.source);
  }

  /** `add` for a row known by its id and source alone (encoded rows). */
  addId(id: string, source: Task['source']): { first: Task['source'] | null } | undefined {
    const slot = this.ids.add(id);
    if (slot < 0) return { first: this.sourceOf(-slot - 1) };
    const file = source ? this.fileNumber(source.file) : -1;
    const row = source ? source.row : 0;
    // Slots are consecutive (a repeat takes none), so a run continues while file and row do.
    if (file !== this.lastFile || (file >= 0 && row !== this.lastRow + 1)) this.startRun(slot, file, row);
    this.lastFile = file;
    this.lastRow = row;
    return undefined;
  }

  private fileNumber(name: string): number {
    let f = this.fileIndex.get(name);
    if (f === undefined) {
      f = this.files.length;
      this.files.push(name);
      this.fileIndex.set(name, f);
    }
    return f;
  }

  private startRun(slot: number, file: number, row: number): void {
    if (this.runs === this.runSlot.length) {
      const size = Math.ceil(this.runs * 1.5);
      const grow = <A extends Uint32Array | Int32Array>(a: A, make: (n: number) => A): A => {
        const b = make(size);
        b.set(a);
        return b;
      };
      this.runSlot = grow(this.runSlot, (n) => new Uint32Array(n));
      this.runFile = grow(this.runFile, (n) => new Int32Array(n));
      this.runRow = grow(this.runRow, (n) => new Uint32Array(n));
    }
    this.runSlot[this.runs] = slot;
    this.runFile[this.runs] = file;
    this.runRow[this.runs] = row;
    this.runs++;
  }

  /** Where slot `s`'s id came from: the run holding it (binary search), then its offset in the run. */
  private sourceOf(s: number): Task['source'] | null {
    let lo = 0;
    let hi = this.runs - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.runSlot[mid]! <= s) lo = mid;
      else hi = mid - 1;
    }
    const f = this.runFile[lo]!;
    if (f < 0) return null;
    return { file: this.files[f]!, row: this.runRow[lo]! + (s - this.runSlot[lo]!) };
  }
}
