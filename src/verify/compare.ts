import type { Answer, Interval, RelOp } from './answer-form.ts';
import type { MathJson } from './evaluate.ts';
import { freeVariables } from './evaluate.ts';
import type { Deadline } from './limits.ts';
import { compareScalars, proportional, type Tri } from './scalar-compare.ts';

/**
 * Equality of two parsed answers, form by form: sets ignore order, tuples and matrices keep it,
 * intervals compare both ends and whether each is closed, relations are the same statement up to
 * a constant factor (a negative one flips an inequality), and an assignment `x = v` matches `v`.
 * Any doubt is `unknown`, which the judge scores 0.
 */

export interface CompareOptions {
  tolerance: number;
  /** A decimal gold also bounds the gap to half a unit of its last digit (off for a loose tolerance). */
  goldDigits: boolean;
  deadline: Deadline;
}

const both = (a: Tri, b: Tri): Tri =>
  a === 'different' || b === 'different'
    ? 'different'
    : a === 'unknown' || b === 'unknown'
      ? 'unknown'
      : 'equal';

function all(results: Iterable<() => Tri>): Tri {
  let out: Tri = 'equal';
  for (const r of results) {
    out = both(out, r());
    if (out === 'different') return out;
  }
  return out;
}

function compareInterval(a: Interval, b: Interval, o: CompareOptions): Tri {
  if (a.loClosed !== b.loClosed || a.hiClosed !== b.hiClosed) return 'different';
  return all([() => compareAnswers(a.lo, b.lo, o), () => compareAnswers(a.hi, b.hi, o)]);
}

/**
 * Every element of `a` equals one of `b` and the other way round (sets: order and repeats
 * ignored). Each pair is compared once, so nested sets cost no more than their size.
 */
function sameElements(a: readonly Answer[], b: readonly Answer[], o: CompareOptions): Tri {
  const table = a.map((x) => b.map((y) => compareAnswers(x, y, o)));
  const covered = (results: Tri[]): Tri =>
    results.includes('equal') ? 'equal' : results.includes('unknown') ? 'unknown' : 'different';
  let out: Tri = 'equal';
  for (const row of table) out = both(out, covered(row));
  for (let j = 0; j < b.length; j++) out = both(out, covered(table.map((row) => row[j]!)));
  return out;
}

function asIntervals(x: Answer): Interval[] | null {
  if (x.form === 'interval') return x.parts;
  if (x.form === 'tuple' && x.items.length === 2)
    return [{ lo: x.items[0]!, hi: x.items[1]!, loClosed: x.open === '[', hiClosed: x.close === ']' }];
  if (x.form === 'relation') return relationAsInterval(x.operands, x.ops);
  if (x.form === 'list') return inequalitiesAsUnion(x.items);
  return null;
}

/** `x < 2 \text{ or } x > 5`: inequalities of one variable joined by "or" are a union. */
function inequalitiesAsUnion(items: Answer[]): Interval[] | null {
  const vars = new Set<string>();
  const parts: Interval[] = [];
  for (const item of items) {
    if (item.form !== 'relation') return null;
    for (const operand of item.operands) freeVariables(operand, vars);
    const intervals = relationAsInterval(item.operands, item.ops);
    if (intervals === null) return null;
    parts.push(...intervals);
  }
  return items.length > 1 && vars.size === 1 ? parts : null;
}

const INF: MathJson = 'PositiveInfinity';
const NEG_INF: MathJson = ['Negate', 'PositiveInfinity'];
const scalar = (json: MathJson): Answer => ({ form: 'scalar', json, text: '' });

/** `1 < x \le 3` → (1, 3]; `x \ge 2` → [2, ∞): a one-variable inequality is an interval. */
function relationAsInterval(operands: MathJson[], ops: RelOp[]): Interval[] | null {
  if (ops.some((op) => op === '=' || op === '!=')) return null;
  const isVar = (j: MathJson) => typeof j === 'string' && freeVariables(j).size === 1;
  const constant = (j: MathJson) => freeVariables(j).size === 0;
  const up = ops.every((op) => op === '<' || op === '<=');
  const down = ops.every((op) => op === '>' || op === '>=');
  if (!up && !down) return null;
  const ordered = up ? operands : [...operands].reverse();
  const orderedOps = up ? ops : [...ops].reverse();
  const closed = (op: RelOp) => op === '<=' || op === '>=';
  if (ordered.length === 3 && isVar(ordered[1]!) && constant(ordered[0]!) && constant(ordered[2]!))
    return [
      {
        lo: scalar(ordered[0]!),
        hi: scalar(ordered[2]!),
        loClosed: closed(orderedOps[0]!),
        hiClosed: closed(orderedOps[1]!),
      },
    ];
  if (ordered.length === 2) {
    if (isVar(ordered[0]!) && constant(ordered[1]!))
      return [
        { lo: scalar(NEG_INF), hi: scalar(ordered[1]!), loClosed: false, hiClosed: closed(orderedOps[0]!) },
      ];
    if (constant(ordered[0]!) && isVar(ordered[1]!))
      return [
        { lo: scalar(ordered[0]!), hi: scalar(INF), loClosed: closed(orderedOps[0]!), hiClosed: false },
      ];
  }
  return null;
}

/** `a op b` as `e op' 0` with op' one of = ≠ < ≤ (so `x > 1` and `1 < x` read the same). */
function toZeroForm(lhs: MathJson, op: RelOp, rhs: MathJson): { e: MathJson; op: '=' | '!=' | '<' | '<=' } {
  if (op === '>' || op === '>=') return { e: ['Subtract', rhs, lhs], op: op === '>' ? '<' : '<=' };
  return { e: ['Subtract', lhs, rhs], op };
}

function compareRelations(
  a: Extract<Answer, { form: 'relation' }>,
  b: Extract<Answer, { form: 'relation' }>,
  o: CompareOptions,
): Tri {
  if (a.ops.length !== b.ops.length) return 'unknown';
  const rels = (r: typeof a) => r.ops.map((op, i) => toZeroForm(r.operands[i]!, op, r.operands[i + 1]!));
  const ra = rels(a);
  const rb = rels(b);
  const tryOrder = (xs: typeof ra, ys: typeof rb): Tri => {
    for (let i = 0; i < xs.length; i++) {
      const x = xs[i]!;
      const y = ys[i]!;
      if (x.op !== y.op) return 'different';
      const k = proportional(x.e, y.e, o.deadline);
      if (k === null) return 'different';
      if ((x.op === '<' || x.op === '<=') && k < 0) return 'different';
    }
    return 'equal';
  };
  const forward = tryOrder(ra, rb);
  if (forward === 'equal' || ra.length === 1) return forward;
  return tryOrder(ra, [...rb].reverse());
}

/**
 * `x = 5` (a named value) against `5`: the value. A chain of constants `0.1 + 0.2 = 0.3` is its
 * last member, when every member is equal (a false chain `2 + 2 = 5` names nothing).
 */
function assignedValue(x: Answer, o: CompareOptions): Answer | null {
  if (x.form !== 'relation' || x.ops.some((op) => op !== '=')) return null;
  const last = x.operands[x.operands.length - 1]!;
  const lhs = x.operands[0]!;
  const named = typeof lhs === 'string' && freeVariables(lhs).size === 1;
  if (x.operands.length === 2 && named) return scalar(last);
  // `x = 5 + 5 + 1 = 11`: a named chain of constants is its last member, when every member is equal.
  const members = named ? x.operands.slice(1) : x.operands;
  if (members.some((j) => freeVariables(j).size > 0)) return null;
  for (let i = named ? 1 : 0; i + 1 < x.operands.length; i++)
    if (compareScalars(x.operands[i]!, last, o.tolerance, o.deadline, o.goldDigits) !== 'equal') return null;
  return scalar(last);
}

/**
 * `x = 7` against `x = 3 + 4 = 7`: two assignments of the same variable, one a chain, compare
 * their values (a chain that is not true names nothing and stays a relation).
 */
function namedValues(a: Answer, b: Answer, o: CompareOptions): [Answer, Answer] | null {
  if (a.form !== 'relation' || b.form !== 'relation' || a.ops.length === b.ops.length) return null;
  const name = (r: typeof a) => (typeof r.operands[0] === 'string' ? r.operands[0] : null);
  if (name(a) === null || name(a) !== name(b)) return null;
  const va = assignedValue(a, o);
  const vb = assignedValue(b, o);
  return va && vb ? [va, vb] : null;
}

const isZero = (j: MathJson, o: CompareOptions) => compareScalars(j, 0, o.tolerance, o.deadline, false);

/**
 * Ratios: `11:21` = `22:42` (proportional: every a_i·b_1 = b_i·a_1, with both first parts
 * non-zero), and a two-part ratio against a number is its quotient (`3:1` = 3). A gold in clock form
 * (`h:mm`, `h:mm:ss`) compares part by part, so `2:10` is not `4:20`.
 */
function compareRatio(gold: Answer, got: Answer, o: CompareOptions): Tri {
  const quotient = (r: MathJson[]): Answer | null =>
    r.length === 2 ? { form: 'scalar', json: ['Divide', r[0]!, r[1]!], text: '' } : null;
  if (gold.form !== 'ratio' || got.form !== 'ratio') {
    if (gold.form === 'ratio' && gold.clock) return 'different';
    const g = gold.form === 'ratio' ? quotient(gold.parts) : gold;
    const r = got.form === 'ratio' ? quotient(got.parts) : got;
    return g && r && g.form === 'scalar' && r.form === 'scalar' ? compareAnswers(g, r, o) : 'different';
  }
  const a = gold.parts;
  const b = got.parts;
  if (a.length !== b.length) return 'different';
  // A gold written as a clock time (`2:10`) is a time, not a proportion: `4:20` is another time.
  if (gold.clock)
    return all(a.map((ai, i) => () => compareScalars(ai, b[i]!, o.tolerance, o.deadline, false)));
  if (isZero(a[0]!, o) !== 'different' || isZero(b[0]!, o) !== 'different') return 'unknown';
  return all(
    a.map(
      (ai, i) => () =>
        compareScalars(['Multiply', ai, b[0]!], ['Multiply', b[i]!, a[0]!], o.tolerance, o.deadline, false),
    ),
  );
}

/**
 * A labelled solution `p=5, q=2`: against another, value by name (`q=2, p=5` is the same);
 * against a tuple `(5, 2)`, its values in the order the names were written.
 */
function compareRecord(gold: Answer, got: Answer, o: CompareOptions): Tri {
  if (gold.form === 'record' && got.form === 'record') {
    if (gold.names.length !== got.names.length) return 'different';
    const at = new Map(got.names.map((n, i) => [n, got.values[i]!]));
    if (!gold.names.every((n) => at.has(n))) return 'different';
    return all(gold.names.map((n, i) => () => compareAnswers(gold.values[i]!, at.get(n)!, o)));
  }
  const record = gold.form === 'record' ? gold : got.form === 'record' ? got : null;
  const tuple = gold.form === 'tuple' ? gold : got.form === 'tuple' ? got : null;
  if (!record || !tuple || record.values.length !== tuple.items.length) return 'different';
  const pairs = record.values.map((v, i) => [v, tuple.items[i]!] as const);
  return all(
    pairs.map(
      ([v, t]) =>
        () =>
          record === gold ? compareAnswers(v, t, o) : compareAnswers(t, v, o),
    ),
  );
}

export function compareAnswers(gold: Answer, got: Answer, o: CompareOptions): Tri {
  o.deadline.check('comparison');
  if (gold.form === 'scalar' && got.form === 'scalar')
    return compareScalars(gold.json, got.json, o.tolerance, o.deadline, o.goldDigits);
  if (gold.form === 'choice' || got.form === 'choice')
    return gold.form === 'choice' && got.form === 'choice' && gold.letter === got.letter
      ? 'equal'
      : 'different';
  if (gold.form === 'text' || got.form === 'text')
    return gold.form === 'text' && got.form === 'text' && gold.text === got.text ? 'equal' : 'different';
  if (gold.form === 'ratio' || got.form === 'ratio') return compareRatio(gold, got, o);
  if (gold.form === 'record' || got.form === 'record') return compareRecord(gold, got, o);
  if (gold.form === 'relation' && got.form === 'relation') {
    const sameName = namedValues(gold, got, o);
    if (sameName !== null) return compareAnswers(sameName[0], sameName[1], o);
    const r = compareRelations(gold, got, o);
    if (r !== 'different') return r;
    const ia = asIntervals(gold);
    const ib = asIntervals(got);
    return ia && ib ? compareIntervalLists(ia, ib, o) : r;
  }
  const goldValue = assignedValue(gold, o);
  if (goldValue && got.form !== 'relation') return compareAnswers(goldValue, got, o);
  const gotValue = assignedValue(got, o);
  if (gotValue && gold.form !== 'relation') return compareAnswers(gold, gotValue, o);
  if (gold.form === 'matrix' || got.form === 'matrix') {
    if (gold.form !== 'matrix' || got.form !== 'matrix') return 'different';
    if (gold.rows.length !== got.rows.length || gold.rows.some((r, i) => r.length !== got.rows[i]!.length))
      return 'different';
    return all(
      gold.rows.flatMap((r, i) =>
        r.map(
          (cell, j) => () => compareScalars(cell, got.rows[i]![j]!, o.tolerance, o.deadline, o.goldDigits),
        ),
      ),
    );
  }
  if ((gold.form === 'set' || gold.form === 'list') && (got.form === 'set' || got.form === 'list'))
    return sameElements(gold.items, got.items, o);
  if (gold.form === 'tuple' && got.form === 'tuple') {
    if (gold.items.length !== got.items.length) return 'different';
    if (gold.items.length === 2 && (gold.open !== got.open || gold.close !== got.close)) return 'different';
    return all(gold.items.map((g, i) => () => compareAnswers(g, got.items[i]!, o)));
  }
  const ia = asIntervals(gold);
  const ib = asIntervals(got);
  if (ia && ib) return compareIntervalLists(ia, ib, o);
  // A one-element set or list against its element: {5} vs 5.
  if ((gold.form === 'set' || gold.form === 'list') && gold.items.length === 1 && got.form === 'scalar')
    return compareAnswers(gold.items[0]!, got, o);
  if ((got.form === 'set' || got.form === 'list') && got.items.length === 1 && gold.form === 'scalar')
    return compareAnswers(gold, got.items[0]!, o);
  return 'different';
}

/** Unions compare as sets of intervals (the order they are written in does not matter). */
function compareIntervalLists(a: Interval[], b: Interval[], o: CompareOptions): Tri {
  if (a.length !== b.length) return 'different';
  const used = new Set<number>();
  let out: Tri = 'equal';
  for (const x of a) {
    let best: Tri = 'different';
    for (let j = 0; j < b.length; j++) {
      if (used.has(j)) continue;
      const r = compareInterval(x, b[j]!, o);
      if (r === 'equal') {
        best = 'equal';
        used.add(j);
        break;
      }
      if (r === 'unknown') best = 'unknown';
    }
    out = both(out, best);
    if (out === 'different') return out;
  }
  return out;
}
