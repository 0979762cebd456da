import type { Task } from '../core/task.ts';
import { StringKeySet } from '../operators/task/exact-dedup-keys.ts';

/**
 * The ids a pipeline run has landed, each with where it came from, so a repeated id is rejected
 * naming the first row. Held in typed arrays (see exact-dedup-keys.ts): a million ids in a `Map`
 * made every full GC of the run walk them, and the run's time grow faster than its rows.
 */
export class LandedIds {
  private readonly ids = new StringKeySet();
  private readonly files: string[] = [];
  private readonly fileIndex = new Map<string, number>();
  /** Per slot: index into `files`, or −1 for a generated row (no source). */
  private fileOf = new Int32Array(1 << 10);
  /** Per slot: the source row (rows are non-negative integers below 2^32). */
  private rowOf = new Uint32Array(1 << 10);

  /** Record `task`'s id; if it was landed before, where the first one came from (null: a generated row). */
  add(task: Task): { first: Task['source'] | null } | undefined {
    const slot = this.ids.add(task.id);
    if (slot < 0) {
      const s = -slot - 1;
      const f = this.fileOf[s]!;
      return { first: f < 0 ? null : { file: this.files[f]!, row: this.rowOf[s]! } };
    }
    if (slot >= this.fileOf.length) {
      const fileOf = new Int32Array(this.fileOf.length * 2);
      fileOf.set(this.fileOf);
      this.fileOf = fileOf;
      const rowOf = new Uint32Array(this.rowOf.length * 2);
      rowOf.set(this.rowOf);
      this.rowOf = rowOf;
    }
    const source = task.source;
    if (!source) this.fileOf[slot] = -1;
    else {
      let f = this.fileIndex.get(source.file);
      if (f === undefined) {
        f = this.files.length;
        this.files.push(source.file);
        this.fileIndex.set(source.file, f);
      }
      this.fileOf[slot] = f;
      this.rowOf[slot] = source.row;
    }
    return undefined;
  }
}
