import { parseLatex } from '@cortex-js/compute-engine';
import { freeVariables, type MathJson } from './evaluate.ts';
import { mixedNumbers } from './exact.ts';
import { plusMinusVariants } from './plus-minus.ts';
import { ratioParts, unlabelledRatio } from './ratio.ts';
import { outerBrackets, splitTopLevel } from './split.ts';

/**
 * The shape of a normalised answer. Structure (intervals, sets, tuples, relations, choices) is read
 * here from the text's top level; every scalar inside is parsed by the compute engine's LaTeX parser.
 */
export type Answer =
  | { form: 'scalar'; json: MathJson; text: string }
  | { form: 'interval'; parts: Interval[] }
  | { form: 'set'; items: Answer[] }
  | { form: 'list'; items: Answer[]; text: string; plusMinus?: true }
  | { form: 'tuple'; items: Answer[]; open: string; close: string }
  | { form: 'matrix'; rows: MathJson[][] }
  | { form: 'relation'; operands: MathJson[]; ops: RelOp[] }
  | { form: 'choice'; letter: string }
  /** `11:21`, `2:3:4`: equal to another ratio when proportional; a two-part one is its quotient. */
  | { form: 'ratio'; parts: MathJson[]; clock: boolean }
  /** One labelled solution of several (`p=5,q=2` in `p=5,q=2;p=7,q=2`): names and their values. */
  | { form: 'record'; names: string[]; values: Answer[] }
  | { form: 'text'; text: string };

export type AnswerForm = Answer['form'];

export interface Interval {
  lo: Answer;
  hi: Answer;
  loClosed: boolean;
  hiClosed: boolean;
}

export type RelOp = '=' | '!=' | '<' | '<=' | '>' | '>=';

export class Unparseable extends Error {}

const RELATION_HEADS: Record<string, RelOp> = {
  Equal: '=',
  NotEqual: '!=',
  Less: '<',
  LessEqual: '<=',
  Greater: '>',
  GreaterEqual: '>=',
};

const PLAIN_NUMBER = /^-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?$/;
const THOUSANDS = /^-?\d{1,3}(?:,\d{3})+(?:\.\d+)?$/;
const CHOICE = /^\(?([A-J])\)?$/;
/** `2:10`, `11:05:30`: a time of day or a duration, read part by part rather than as a proportion. */
const CLOCK_TIME = /^\d{1,2}:[0-5]\d(?::[0-5]\d)?$/;

function hasError(json: unknown): boolean {
  if (Array.isArray(json)) return json[0] === 'Error' || json.some(hasError);
  if (json !== null && typeof json === 'object') return Object.values(json).some(hasError);
  return false;
}

const PLUS_MINUS_HEADS = new Set(['Measurement', 'PlusMinus', 'MinusPlus']);
function hasHead(json: unknown, heads: ReadonlySet<string>): boolean {
  return (
    Array.isArray(json) &&
    ((typeof json[0] === 'string' && heads.has(json[0])) || json.some((j) => hasHead(j, heads)))
  );
}

/** A number literal: kept as written when a float would round it (`9007199254740993`). */
function literal(t: string): MathJson {
  const n = Number(t);
  return t.replace(/^[-+]|[eE].*$|\./g, '').replace(/^0+/, '').length > 15 ? { num: t } : n;
}

/** A scalar through the compute engine's parser (plain numbers skip it: the common case). */
export function parseScalar(text: string): MathJson {
  const t = text.trim();
  if (t === '') throw new Unparseable('empty');
  if (PLAIN_NUMBER.test(t)) return literal(t);
  if (THOUSANDS.test(t)) return literal(t.replace(/,/g, ''));
  const json = parseLatex(t) as MathJson;
  if (hasError(json)) throw new Unparseable(`cannot parse ${t.slice(0, 60)}`);
  // A ± the splitting did not reach (the engine reads `a \pm b` as a measurement a with error b).
  if (hasHead(json, PLUS_MINUS_HEADS))
    throw new Unparseable(`a sign ± where it cannot be split: ${t.slice(0, 60)}`);
  return mixedNumbers(json);
}

/**
 * Chained relations come nested either way or flat (`1 < x \le 3`, `2 > x > -2`,
 * `-2 \le x \le 2`): flatten them into operands and the operators between them.
 */
function relationChain(json: MathJson): { operands: MathJson[]; ops: RelOp[] } | null {
  if (!Array.isArray(json) || typeof json[0] !== 'string') return null;
  const op = RELATION_HEADS[json[0]];
  if (op === undefined || json.length < 3) return null;
  const operands: MathJson[] = [];
  const ops: RelOp[] = [];
  for (let i = 1; i < json.length; i++) {
    if (i > 1) ops.push(op);
    const inner = relationChain(json[i]!);
    if (inner === null) operands.push(json[i]!);
    else {
      operands.push(...inner.operands);
      ops.push(...inner.ops);
    }
  }
  return operands.length === ops.length + 1 ? { operands, ops } : null;
}

const RELATION_TEXT = /(?:^|[^\\])(?:=|<|>)|\\(?:le|ge|leq|geq|ne|neq|leqslant|geqslant)(?![a-zA-Z])/;

function parseInterval(text: string): Interval | null {
  const b = outerBrackets(text);
  if (!b || !'(['.includes(b.open) || !')]'.includes(b.close)) return null;
  const ends = splitTopLevel(b.inner, ',');
  if (ends.length !== 2) return null;
  return {
    lo: parseAnswer(ends[0]!),
    hi: parseAnswer(ends[1]!),
    loClosed: b.open === '[',
    hiClosed: b.close === ']',
  };
}

/**
 * A label in front of a constant value: `(p,q)=(3,2)`, `f(x)=1`, `AB=4` → the value. Only when
 * the value has no letters of its own; `x = 3` keeps its form (as a line it differs from `y = 3`;
 * against a bare value it is compared as an assignment). A function's label goes in front of an
 * expression in its own argument too: `f(x) = 2x + 1` → `2x + 1`. An angle's name is a label
 * (`\angle ABC = 60^\circ`, `m\angle A = 60`).
 */
const LABEL =
  /^(?:\(\s*[A-Za-z](?:_\{?\w+\}?)?(?:\s*,\s*[A-Za-z](?:_\{?\w+\}?)?)+\s*\)|[A-Za-z](?:_\{?\w+\}?)?\s*\(\s*([A-Za-z])\s*\)|[A-Z]{2,3}|(?:m\s*)?\\angle\s*[A-Z]{1,3})\s*=\s*([^=<>]+)$/;

const VALUE_COMMANDS = /\\(?:frac|dfrac|tfrac|sqrt|pi|infty|cdot|times|left|right)(?![a-zA-Z])/g;

function unlabelled(t: string): string {
  const m = LABEL.exec(t);
  if (!m) return t;
  const argument = m[1];
  const value = m[2]!.trim();
  const letters = value.replace(VALUE_COMMANDS, '').match(/[A-Za-z]/g) ?? [];
  return letters.every((l) => l === argument) ? value : t;
}

/** `\{-1, 8\}` in a union: each point a closed interval of length 0 ([−1, −1], [8, 8]). */
function pointsAsIntervals(text: string): Interval[] | null {
  const b = outerBrackets(text);
  if (!b || b.open !== '\\{' || b.inner.trim() === '') return null;
  return parseItems(splitTopLevel(b.inner, ',')).map((point) => ({
    lo: point,
    hi: point,
    loClosed: true,
    hiClosed: true,
  }));
}

/** The structure of a normalised answer. Throws `Unparseable` when a part cannot be read. */
export function parseAnswer(text: string): Answer {
  const t = unlabelled(unlabelledRatio(text.trim()));
  if (t === '') throw new Unparseable('empty answer');
  const solutions = t.includes(';') ? splitTopLevel(t, ';') : [t];
  if (solutions.length > 1)
    return { form: 'list', items: solutions.map((s) => asRecord(parseAnswer(s))), text: t };
  // `a \pm b` as a whole answer; in a list or set, each item is split on its own.
  const pm = plusMinusVariants(t);
  if (pm !== null && !t.startsWith('\\{') && splitTopLevel(t, ',').length === 1) {
    if ('ambiguous' in pm)
      throw new Unparseable(
        `${pm.ambiguous} signs ± in one answer part: whether they vary together or apart is ambiguous`,
      );
    return { form: 'list', items: pm.variants.map(parseAnswer), text: t, plusMinus: true };
  }
  const choice = CHOICE.exec(t);
  if (choice && (t.startsWith('(') || /^[A-E]$/.test(t))) return { form: 'choice', letter: choice[1]! };
  if (/^\\begin\{[pbBvV]?matrix\}|^\\begin\{array\}/.test(t)) {
    const json = parseLatex(t) as MathJson;
    if (!Array.isArray(json) || json[0] !== 'Matrix' || hasError(json)) throw new Unparseable('matrix');
    const rows = json[1];
    if (!Array.isArray(rows) || rows[0] !== 'List') throw new Unparseable('matrix rows');
    return {
      form: 'matrix',
      rows: rows.slice(1).map((r) => (Array.isArray(r) && r[0] === 'List' ? r.slice(1) : [r])),
    };
  }
  const unionParts = splitTopLevel(t, '\\cup');
  if (unionParts.length > 1) {
    const parts = unionParts.map((u) => pointsAsIntervals(u) ?? parseInterval(u));
    if (parts.some((p) => p === null)) throw new Unparseable('union of non-intervals');
    return { form: 'interval', parts: (parts as Array<Interval | Interval[]>).flat() };
  }
  const b = outerBrackets(t);
  if (b && b.open === '\\{') {
    const inner = b.inner.trim();
    const builder = setBuilder(inner);
    if (builder) return builder;
    return { form: 'set', items: inner === '' ? [] : parseItems(splitTopLevel(inner, ',')) };
  }
  if (b && '(['.includes(b.open) && ')]'.includes(b.close)) {
    const items = splitTopLevel(b.inner, ',');
    if (items.length === 2) {
      const iv = parseInterval(t)!;
      // A mixed bracket is an interval for sure; `(a, b)` may be a point: kept as a tuple that
      // compares by brackets and ends, which is the same test.
      if (b.open !== b.close.replace(')', '(').replace(']', '[')) return { form: 'interval', parts: [iv] };
      return { form: 'tuple', items: [iv.lo, iv.hi], open: b.open, close: b.close };
    }
    if (items.length > 2)
      return { form: 'tuple', items: items.map(parseAnswer), open: b.open, close: b.close };
  }
  if (t === '\\emptyset' || t === '\\varnothing' || t === '\\{\\}') return { form: 'set', items: [] };
  const commas = splitTopLevel(t, ',');
  if (commas.length > 1 && !THOUSANDS.test(t)) return { form: 'list', items: parseItems(commas), text: t };
  if (/^[A-Za-z][A-Za-z '-]*$/.test(t) && /[A-Za-z]{3,}/.test(t))
    return { form: 'text', text: t.toLowerCase() };
  const ratio = ratioParts(t);
  if (ratio) return { form: 'ratio', parts: ratio.map(parseScalar), clock: CLOCK_TIME.test(t) };
  if (RELATION_TEXT.test(t)) {
    const json = parseScalar(t);
    const chain = relationChain(json);
    if (chain) return { form: 'relation', ...chain };
    return { form: 'scalar', json, text: t };
  }
  return { form: 'scalar', json: parseScalar(t), text: t };
}

/** The items of a list or set; an item `a \pm b` is two items. */
function parseItems(parts: string[]): Answer[] {
  return parts.flatMap((p) => {
    const a = parseAnswer(p);
    return a.form === 'list' && a.plusMinus ? a.items : [a];
  });
}

/**
 * `p=5, q=2` as one solution among several: each part names a different variable and gives it a
 * constant value. Anything else is left as it is.
 */
function asRecord(a: Answer): Answer {
  if (a.form !== 'list' || a.items.length < 2) return a;
  const names: string[] = [];
  const values: Answer[] = [];
  for (const item of a.items) {
    if (item.form !== 'relation' || item.ops.length !== 1 || item.ops[0] !== '=') return a;
    const [name, value] = item.operands;
    if (typeof name !== 'string' || freeVariables(name).size !== 1 || freeVariables(value!).size > 0)
      return a;
    names.push(name);
    values.push({ form: 'scalar', json: value!, text: '' });
  }
  return new Set(names).size === names.length ? { form: 'record', names, values } : a;
}

/** The one variable's name on the left of `x \mid …`, `x : …`, `x \in \mathbb{R} \mid …`. */
const SET_BUILDER = /^([A-Za-z])\s*(?:\\in\s*\\mathbb\s*\{?\s*R\s*\}?\s*)?(?:\\mid|\||:)\s*(.+)$/;

/**
 * `\{x \mid x > 2\}` is the inequality's solution set, compared like the inequality (`(2, \infty)`).
 * Only a condition of that one variable made of inequalities; anything else is not read this way.
 */
function setBuilder(inner: string): Answer | null {
  const m = SET_BUILDER.exec(inner);
  if (!m) return null;
  const condition = parseAnswer(m[2]!);
  const relations = condition.form === 'list' ? condition.items : [condition];
  const vars = new Set<string>();
  for (const r of relations) {
    if (r.form !== 'relation' || r.ops.some((op) => op === '=' || op === '!=')) return null;
    for (const operand of r.operands) freeVariables(operand, vars);
  }
  return vars.size === 1 && vars.has(m[1]!) ? condition : null;
}
