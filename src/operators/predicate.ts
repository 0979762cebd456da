import { z } from 'zod';

/**
 * Row predicates for branch routing, written as data (never code) so a YAML file cannot run anything:
 * `{ field: features.difficulty, gt: 0.5 }`, `{ all: [...] }`, `{ any: [...] }`, `{ not: {...} }`.
 */
export type Predicate =
  | {
      field: string;
      equals?: unknown;
      notEquals?: unknown;
      in?: unknown[];
      gt?: number;
      gte?: number;
      lt?: number;
      lte?: number;
      matches?: string;
      exists?: boolean;
    }
  | { all: Predicate[] }
  | { any: Predicate[] }
  | { not: Predicate };

export const PredicateSchema: z.ZodType<Predicate> = z.lazy(() =>
  z.union([
    z.strictObject({ all: z.array(PredicateSchema).min(1) }),
    z.strictObject({ any: z.array(PredicateSchema).min(1) }),
    z.strictObject({ not: PredicateSchema }),
    z.strictObject({
      field: z.string().min(1),
      equals: z.unknown().optional(),
      notEquals: z.unknown().optional(),
      in: z.array(z.unknown()).optional(),
      gt: z.number().optional(),
      gte: z.number().optional(),
      lt: z.number().optional(),
      lte: z.number().optional(),
      matches: z.string().optional(),
      exists: z.boolean().optional(),
    }),
  ]),
);

/** Read `a.b.c` from a row; undefined when any part is missing. */
export function getPath(row: unknown, path: string): unknown {
  let cur: unknown = row;
  for (const key of path.split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  return cur;
}

export function compilePredicate(p: Predicate): (row: unknown) => boolean {
  if ('all' in p) {
    const parts = p.all.map(compilePredicate);
    return (row) => parts.every((f) => f(row));
  }
  if ('any' in p) {
    const parts = p.any.map(compilePredicate);
    return (row) => parts.some((f) => f(row));
  }
  if ('not' in p) {
    const inner = compilePredicate(p.not);
    return (row) => !inner(row);
  }
  const tests: Array<(v: unknown) => boolean> = [];
  if (p.exists !== undefined) tests.push((v) => (v !== undefined && v !== null) === p.exists);
  if ('equals' in p && p.equals !== undefined) tests.push((v) => v === p.equals);
  if ('notEquals' in p && p.notEquals !== undefined) tests.push((v) => v !== p.notEquals);
  if (p.in) {
    const set = new Set(p.in);
    tests.push((v) => set.has(v));
  }
  if (p.gt !== undefined) tests.push((v) => typeof v === 'number' && v > p.gt!);
  if (p.gte !== undefined) tests.push((v) => typeof v === 'number' && v >= p.gte!);
  if (p.lt !== undefined) tests.push((v) => typeof v === 'number' && v < p.lt!);
  if (p.lte !== undefined) tests.push((v) => typeof v === 'number' && v <= p.lte!);
  if (p.matches !== undefined) {
    const re = new RegExp(p.matches);
    tests.push((v) => typeof v === 'string' && re.test(v));
  }
  const field = p.field;
  return (row) => {
    const v = getPath(row, field);
    for (const t of tests) if (!t(v)) return false;
    return true;
  };
}
