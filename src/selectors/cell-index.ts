/**
 * Tasks bucketed by a group (e.g. their domain) and a grid over two static coordinates (e.g. the
 * weak and strong reference pass rates), in CSR layout, with each cell's actual coordinate range.
 * Selectors whose score depends on a task only through those coordinates (for tasks they have not
 * observed yet) bound the score over each cell and visit cells best bound first, stopping as soon
 * as no remaining cell can beat the current k-th best: an exact top-k without scanning every task.
 */
export class CellIndex {
  readonly cellCount: number;
  /** Cell c holds items[start[c] .. start[c + 1]), ascending task index. */
  readonly start: Int32Array;
  readonly items: Int32Array;
  readonly group: Int32Array;
  readonly uMin: Float64Array;
  readonly uMax: Float64Array;
  readonly vMin: Float64Array;
  readonly vMax: Float64Array;

  /**
   * `u`, `v`: coordinates per task (finite); `groups`: group code per task (or null: one group);
   * `include(k)`: whether task k belongs in the index; `grid`: cells per coordinate axis.
   */
  constructor(opts: {
    n: number;
    u: Float64Array;
    v: Float64Array;
    groups: Int32Array | null;
    include: (k: number) => boolean;
    grid: number;
  }) {
    const { n, u, v, groups, include, grid } = opts;
    let uLo = Number.POSITIVE_INFINITY;
    let uHi = Number.NEGATIVE_INFINITY;
    let vLo = Number.POSITIVE_INFINITY;
    let vHi = Number.NEGATIVE_INFINITY;
    let nGroups = 1;
    for (let k = 0; k < n; k++) {
      if (!include(k)) continue;
      uLo = Math.min(uLo, u[k]!);
      uHi = Math.max(uHi, u[k]!);
      vLo = Math.min(vLo, v[k]!);
      vHi = Math.max(vHi, v[k]!);
      if (groups) nGroups = Math.max(nGroups, groups[k]! + 1);
    }
    const per = grid * grid;
    const cells = nGroups * per;
    const uw = uHi > uLo ? (uHi - uLo) / grid : 1;
    const vw = vHi > vLo ? (vHi - vLo) / grid : 1;
    const cellOf = (k: number): number => {
      const i = Math.min(grid - 1, Math.max(0, Math.floor((u[k]! - uLo) / uw)));
      const j = Math.min(grid - 1, Math.max(0, Math.floor((v[k]! - vLo) / vw)));
      return (groups ? groups[k]! : 0) * per + i * grid + j;
    };
    const count = new Int32Array(cells + 1);
    const assigned = new Int32Array(n).fill(-1);
    for (let k = 0; k < n; k++) {
      if (!include(k)) continue;
      const c = cellOf(k);
      assigned[k] = c;
      count[c + 1]!++;
    }
    for (let c = 0; c < cells; c++) count[c + 1]! += count[c]!;
    const start = count;
    const fill = start.slice(0, cells);
    const items = new Int32Array(start[cells]!);
    const uMin = new Float64Array(cells).fill(Number.POSITIVE_INFINITY);
    const uMax = new Float64Array(cells).fill(Number.NEGATIVE_INFINITY);
    const vMin = new Float64Array(cells).fill(Number.POSITIVE_INFINITY);
    const vMax = new Float64Array(cells).fill(Number.NEGATIVE_INFINITY);
    const group = new Int32Array(cells);
    for (let c = 0; c < cells; c++) group[c] = Math.floor(c / per);
    for (let k = 0; k < n; k++) {
      const c = assigned[k]!;
      if (c < 0) continue;
      items[fill[c]!++] = k;
      if (u[k]! < uMin[c]!) uMin[c] = u[k]!;
      if (u[k]! > uMax[c]!) uMax[c] = u[k]!;
      if (v[k]! < vMin[c]!) vMin[c] = v[k]!;
      if (v[k]! > vMax[c]!) vMax[c] = v[k]!;
    }
    this.cellCount = cells;
    this.start = start;
    this.items = items;
    this.group = group;
    this.uMin = uMin;
    this.uMax = uMax;
    this.vMin = vMin;
    this.vMax = vMax;
  }

  isEmpty(c: number): boolean {
    return this.start[c + 1] === this.start[c];
  }
}

/** Cells in ascending order of a per-cell lower bound (a binary heap; empty cells are left out). */
export class CellQueue {
  private readonly heap: Int32Array;
  private size = 0;
  private readonly lb: Float64Array;

  constructor(index: CellIndex, lowerBounds: Float64Array) {
    this.lb = lowerBounds;
    this.heap = new Int32Array(index.cellCount);
    for (let c = 0; c < index.cellCount; c++) if (!index.isEmpty(c)) this.heap[this.size++] = c;
    for (let i = (this.size >> 1) - 1; i >= 0; i--) this.down(i);
  }

  /** The next cell (smallest bound, then smallest id), or −1 when none is left. */
  pop(): number {
    if (this.size === 0) return -1;
    const top = this.heap[0]!;
    this.heap[0] = this.heap[--this.size]!;
    this.down(0);
    return top;
  }

  private less(a: number, b: number): boolean {
    const la = this.lb[a]!;
    const lb = this.lb[b]!;
    return la < lb || (la === lb && a < b);
  }

  private down(i: number): void {
    const h = this.heap;
    const n = this.size;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) return;
      const r = l + 1;
      let m = l;
      if (r < n && this.less(h[r]!, h[l]!)) m = r;
      if (!this.less(h[m]!, h[i]!)) return;
      const t = h[i]!;
      h[i] = h[m]!;
      h[m] = t;
      i = m;
    }
  }
}

/** Cells per axis so that each of `groups` grids holds ~64 tasks per cell: √(N / (64·groups)), in [2, 256]. */
export function autoGrid(n: number, groups: number): number {
  return Math.min(256, Math.max(2, Math.round(Math.sqrt(n / (64 * Math.max(1, groups))))));
}
