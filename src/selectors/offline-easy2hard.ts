import { ConfigError, DataError } from '../core/errors.ts';
import type { JsonValue } from '../core/task.ts';
import { BaseSelector } from './base.ts';
import type { SelectorTaskView } from './types.ts';

export interface SortKey {
  feature: string;
  order: 'asc' | 'desc';
}

/**
 * A fixed curriculum: tasks sorted by one or several feature columns (lexicographically, each
 * ascending or descending; NaN last; ties by position), then visited in that order, wrapping at
 * the end. Tasks added mid-run are merged into the order; the position in it is kept.
 */
export class OfflineEasy2HardSelector extends BaseSelector {
  readonly type = 'offline_easy2hard';
  private readonly keys: readonly SortKey[];
  private order: Int32Array = new Int32Array(0);
  private cursor = 0;
  private epoch = 0;
  private columns: Float64Array[] = [];

  constructor(seed: number, keys: readonly SortKey[]) {
    super(seed);
    if (keys.length === 0)
      throw new ConfigError({
        path: 'selector.params.keys',
        message: 'give at least one feature column to sort by',
      });
    this.keys = keys;
  }

  protected override onInit(view: SelectorTaskView): void {
    this.columns = this.keys.map((key, i) => {
      const col = view.features[key.feature];
      if (!col)
        throw new ConfigError({
          path: `selector.params.keys[${i}].feature`,
          message: `the tasks have no feature column '${key.feature}'`,
          hint: `columns: ${Object.keys(view.features).join(', ') || '(none)'}`,
        });
      return Float64Array.from(col);
    });
    this.sortAll();
  }

  protected override onAddTasks(view: SelectorTaskView, _offset: number): void {
    this.columns = this.keys.map((key, i) => {
      const col = view.features[key.feature];
      if (!col)
        throw new DataError({
          message: `offline_easy2hard.addTasks: new tasks lack feature column '${key.feature}' (key ${i})`,
        });
      const merged = new Float64Array(this.columns[i]!.length + col.length);
      merged.set(this.columns[i]!);
      merged.set(col, this.columns[i]!.length);
      return merged;
    });
    this.sortAll();
  }

  /** The curriculum: task indices in visiting order. */
  curriculum(): Int32Array {
    return this.order.slice();
  }

  protected pick(n: number): Int32Array {
    const out = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      out[i] = this.order[this.cursor++]!;
      if (this.cursor >= this.order.length) {
        this.cursor = 0;
        this.epoch++;
      }
    }
    return out;
  }

  private sortAll(): void {
    const n = this.ids.length;
    const idx = Array.from({ length: n }, (_, i) => i);
    const cols = this.columns;
    const signs = this.keys.map((k) => (k.order === 'desc' ? -1 : 1));
    idx.sort((a, b) => {
      for (let c = 0; c < cols.length; c++) {
        const va = cols[c]![a]!;
        const vb = cols[c]![b]!;
        const na = Number.isNaN(va);
        const nb = Number.isNaN(vb);
        if (na || nb) {
          if (na && nb) continue;
          return na ? 1 : -1;
        }
        if (va !== vb) return (va < vb ? -1 : 1) * signs[c]!;
      }
      return a - b;
    });
    this.order = Int32Array.from(idx);
  }

  protected override saveData(): { [key: string]: JsonValue } {
    return { cursor: this.cursor, epoch: this.epoch };
  }

  protected override loadData(data: { [key: string]: JsonValue }): void {
    const { cursor, epoch } = data;
    if (
      typeof cursor !== 'number' ||
      typeof epoch !== 'number' ||
      cursor < 0 ||
      cursor >= Math.max(1, this.size)
    )
      throw new DataError({ message: 'offline_easy2hard.load: state.data needs cursor and epoch' });
    this.cursor = cursor;
    this.epoch = epoch;
  }
}
