import type { SelectorTaskView } from '../types.ts';

/**
 * A dense vector per task for the methods that predict from task similarity (DOTS, PCL): the
 * task's embedding when the view carries one (`vectors`), otherwise its numeric feature columns
 * standardised (missing values at the mean) plus a one-hot of its domain. Rows are stored
 * contiguously in one Float64Array, `dim` entries per task.
 */
export interface TaskEmbeddings {
  dim: number;
  data: Float64Array;
  /** Where the vectors came from, for notices. */
  source: string;
}

const MAX_DOMAINS = 64;

export function taskEmbeddings(view: SelectorTaskView, vectorColumn?: string): TaskEmbeddings {
  const n = view.ids.length;
  const vecs = view.vectors;
  const name = vectorColumn ?? (vecs ? Object.keys(vecs)[0] : undefined);
  const col = name && vecs ? vecs[name] : undefined;
  if (col?.some((v) => v !== null)) {
    const dim = col.find((v) => v !== null)!.length;
    const data = new Float64Array(n * dim);
    for (let k = 0; k < n; k++) {
      const v = col[k];
      if (!v || v.length !== dim) continue;
      for (let j = 0; j < dim; j++) data[k * dim + j] = v[j]!;
    }
    return { dim, data, source: `vectors '${name}'` };
  }
  const names = Object.keys(view.features).sort();
  const domainCodes = new Map<string, number>();
  if (view.domains)
    for (let k = 0; k < n && domainCodes.size <= MAX_DOMAINS; k++) {
      const d = String(view.domains[k]);
      if (!domainCodes.has(d)) domainCodes.set(d, domainCodes.size);
    }
  const oneHot = domainCodes.size > 1 && domainCodes.size <= MAX_DOMAINS ? domainCodes.size : 0;
  const dim = names.length + oneHot;
  const data = new Float64Array(n * Math.max(1, dim));
  names.forEach((f, j) => {
    const c = view.features[f]!;
    let s = 0;
    let m = 0;
    for (let k = 0; k < n; k++)
      if (Number.isFinite(c[k]!)) {
        s += c[k]!;
        m++;
      }
    const mean = m > 0 ? s / m : 0;
    let v = 0;
    for (let k = 0; k < n; k++) if (Number.isFinite(c[k]!)) v += (c[k]! - mean) ** 2;
    const sd = m > 1 && v > 0 ? Math.sqrt(v / m) : 1;
    for (let k = 0; k < n; k++) data[k * dim + j] = Number.isFinite(c[k]!) ? (c[k]! - mean) / sd : 0;
  });
  if (oneHot > 0 && view.domains)
    for (let k = 0; k < n; k++) data[k * dim + names.length + domainCodes.get(String(view.domains[k]))!] = 1;
  return {
    dim: Math.max(1, dim),
    data,
    source: dim > 0 ? `features (${[...names, ...(oneHot ? ['domain'] : [])].join(', ')})` : 'none',
  };
}
