import { closestNames } from '../core/suggest.ts';
import { describe, fail, isKeyword, KEYWORDS, type Token, tokenize } from './where-tokens.ts';

/**
 * `--where` for inspect/export: a small, safe filter language checked against the table's columns
 * before anything reaches LanceDB. The SQL handed to LanceDB is printed from the parsed tree, never
 * the user's text, so a bad expression is our one-line error and not the engine's.
 *
 *   expr    := or
 *   or      := and ('OR' and)*
 *   and     := not ('AND' not)*
 *   not     := 'NOT' not | '(' expr ')' | test
 *   test    := column ( cmp value | 'IS' ['NOT'] 'NULL' | ['NOT'] 'IN' '(' literal (',' literal)* ')'
 *                     | ['NOT'] 'LIKE' string )
 *   value   := literal | column
 *   cmp     := '=' | '!=' | '<>' | '<' | '<=' | '>' | '>='
 *   literal := 'single-quoted string' | number | TRUE | FALSE
 *   column  := name | name '.' key ('.' key)*
 *
 * Typed columns (docs/exports.md, LanceDB tables): `features.NAME` is a number (a key of the
 * features map); `meta.a.b` / `info.a` reach into JSON, typed by the value compared with (a number,
 * 'text' or TRUE/FALSE); a time column compares with epoch milliseconds or a 'date' in quotes.
 */

/** What a column holds, as far as filtering goes. */
export type ColumnKind = 'string' | 'number' | 'boolean' | 'time' | 'map' | 'json' | 'other';

type Literal =
  | { kind: 'string'; value: string }
  | { kind: 'number'; value: number }
  | { kind: 'boolean'; value: boolean };

/** A tested column: its name as written, and the SQL that reads it when that is not the bare name. */
interface Tested {
  column: string;
  /** SQL for the value tested (a map key, a JSON path); the bare column when absent. */
  sql?: string;
  /** The column is a timestamp: literals are epoch milliseconds. */
  time?: boolean;
}

export type WhereNode =
  | { type: 'and' | 'or'; left: WhereNode; right: WhereNode }
  | { type: 'not'; expr: WhereNode }
  | (Tested & { type: 'compare'; op: string; value: Literal | { kind: 'column'; name: string } })
  | (Tested & { type: 'null'; negated: boolean })
  | (Tested & { type: 'in'; values: Literal[]; negated: boolean })
  | (Tested & { type: 'like'; pattern: string; negated: boolean });

/** A column reference as parsed: a stored column, a key of a features map, or a path into JSON. */
interface Col {
  name: string;
  kind: ColumnKind;
  pos: number;
  /** SQL reading the value (a map key). */
  sql?: string;
  /** A JSON path, typed by what it is compared with. */
  json?: { base: string; path: string[] };
}

const sqlKey = (k: string) => `'${k.replace(/'/g, "''")}'`;

/** `features.NAME` (a map key, a number) or `meta.a.b` (a JSON path); anything else is one line. */
function nestedColumn(
  name: string,
  base: string,
  path: string[],
  kind: ColumnKind | undefined,
  pos: number,
): Col {
  if (kind === 'map') {
    if (path.length > 1) fail(`'${base}' holds named numbers, one level deep: write ${base}.${path[0]}`, pos);
    return { name, kind: 'number', pos, sql: `map_extract(${sqlIdent(base)}, ${sqlKey(path[0]!)})[1]` };
  }
  if (kind === 'json') return { name, kind: 'json', pos, json: { base, path } };
  if (kind === undefined) fail(`unknown column '${base}' in '${name}'`, pos);
  return fail(
    `'${base}' has no fields to reach with '.'`,
    pos,
    'dotted names work on typed features (a map) and JSON columns (meta, info, summary)',
  );
}

/** SQL reading a JSON path as the compared literal's kind (a nested key goes through json_get). */
function jsonPathSql(base: string, path: readonly string[], kind: Literal['kind'] | undefined): string {
  let doc = sqlIdent(base);
  for (const k of path.slice(0, -1)) doc = `json_get(${doc}, ${sqlKey(k)})`;
  const last = sqlKey(path[path.length - 1]!);
  const fn =
    kind === 'number'
      ? 'json_get_float'
      : kind === 'boolean'
        ? 'json_get_bool'
        : kind === 'string'
          ? 'json_get_string'
          : 'json_get';
  return `${fn}(${doc}, ${last})`;
}

/** Parse `text` against `columns` (name → kind); throws a one-line UsageError naming the position. */
export function parseWhere(text: string, columns: ReadonlyMap<string, ColumnKind>): WhereNode {
  if (text.trim() === '') fail('empty expression', 1, 'e.g. --where "reward > 0 AND taskset = \'gsm8k\'"');
  const parser = new WhereParser(tokenize(text), columns);
  const tree = parser.or();
  const rest = parser.peek();
  if (rest.kind !== 'end') fail(`unexpected ${describe(rest)}`, rest.pos, 'join tests with AND / OR');
  return tree;
}

/** Recursive descent over the tokens: or → and → not → test (a column tested against literals or a column). */
class WhereParser {
  private readonly tokens: Token[];
  private readonly columns: ReadonlyMap<string, ColumnKind>;
  private k = 0;

  constructor(tokens: Token[], columns: ReadonlyMap<string, ColumnKind>) {
    this.tokens = tokens;
    this.columns = columns;
  }

  peek(): Token {
    return this.tokens[this.k]!;
  }

  private next(): Token {
    return this.tokens[this.k++]!;
  }

  private expect(kind: Token['kind'], what: string): Token {
    const t = this.next();
    if (t.kind !== kind) fail(`expected ${what}, got ${describe(t)}`, t.pos);
    return t;
  }

  private column(): Col {
    const t = this.next();
    if (t.kind !== 'word' || KEYWORDS.has(t.text.toUpperCase()))
      fail(`expected a column name, got ${describe(t)}`, t.pos);
    const [base = '', ...path] = t.text.split('.');
    if (path.length > 0) return nestedColumn(t.text, base, path, this.columns.get(base), t.pos);
    const kind = this.columns.get(t.text);
    if (kind === undefined) {
      const near = closestNames(t.text, [...this.columns.keys()]);
      fail(
        `unknown column '${t.text}'`,
        t.pos,
        near.length > 0
          ? `did you mean ${near.map((n) => `'${n}'`).join(', ')}?`
          : `columns: ${[...this.columns.keys()].join(', ')}`,
      );
    }
    return { name: t.text, kind, pos: t.pos };
  } /** What the node records about the tested column, once the compared literal's kind is known. */
  private tested(col: Col, litKind?: Literal['kind']): Tested {
    if (col.json) return { column: col.name, sql: jsonPathSql(col.json.base, col.json.path, litKind) };
    if (col.sql) return { column: col.name, sql: col.sql };
    return col.kind === 'time' ? { column: col.name, time: true } : { column: col.name };
  }
  private literal(): Literal & { pos: number } {
    const t = this.next();
    if (t.kind === 'string') return { kind: 'string', value: t.text, pos: t.pos };
    if (t.kind === 'number') return { kind: 'number', value: Number(t.text), pos: t.pos };
    if (isKeyword(t, 'TRUE') || isKeyword(t, 'FALSE'))
      return { kind: 'boolean', value: t.text.toUpperCase() === 'TRUE', pos: t.pos };
    return fail(`expected a value ('text', a number, TRUE or FALSE), got ${describe(t)}`, t.pos);
  } /** A literal must suit the column it is compared with (a number column takes numbers…). */
  private checkType(col: Col, lit: Literal & { pos: number }) {
    if (col.kind === 'json') return; // a JSON value takes the type of what it is compared with
    if (col.kind === 'time') {
      if (lit.kind === 'number' || (lit.kind === 'string' && Number.isFinite(Date.parse(lit.value)))) return;
      fail(
        `column '${col.name}' holds times: compare it with epoch milliseconds or a date in quotes, got ${JSON.stringify(lit.value)}`,
        lit.pos,
        "e.g. '2026-11-24' or '2026-11-24T12:00:00Z'",
      );
    }
    if (col.kind === 'other' || col.kind === 'map')
      fail(
        `column '${col.name}' can only be tested with IS [NOT] NULL`,
        lit.pos,
        col.kind === 'map' ? `test one key: ${col.name}.NAME` : undefined,
      );
    if (lit.kind !== col.kind)
      fail(`column '${col.name}' holds ${col.kind}s, got ${lit.kind} ${JSON.stringify(lit.value)}`, lit.pos);
  }
  private test(): WhereNode {
    const col = this.column();
    const t = this.peek();
    if (isKeyword(t, 'IS')) {
      this.next();
      const negated = isKeyword(this.peek(), 'NOT');
      if (negated) this.next();
      const n = this.next();
      if (!isKeyword(n, 'NULL')) fail(`expected NULL after IS, got ${describe(n)}`, n.pos);
      return { type: 'null', ...this.tested(col), negated };
    }
    const negated = isKeyword(t, 'NOT');
    if (negated) this.next();
    const op = this.next();
    if (isKeyword(op, 'IN')) {
      this.expect('lparen', "'(' after IN");
      const values: Literal[] = [];
      for (;;) {
        const lit = this.literal();
        this.checkType(col, lit);
        if (values.length > 0 && lit.kind !== values[0]!.kind)
          fail(`the IN list mixes ${values[0]!.kind}s and ${lit.kind}s`, lit.pos);
        values.push({ kind: lit.kind, value: lit.value } as Literal);
        const sep = this.next();
        if (sep.kind === 'rparen') break;
        if (sep.kind !== 'comma') fail(`expected ',' or ')' in the IN list, got ${describe(sep)}`, sep.pos);
      }
      return { type: 'in', ...this.tested(col, values[0]?.kind), values, negated };
    }
    if (isKeyword(op, 'LIKE')) {
      const p = this.next();
      if (p.kind !== 'string') fail(`LIKE takes a 'pattern' in single quotes, got ${describe(p)}`, p.pos);
      if (col.kind !== 'string' && col.kind !== 'json')
        fail(`LIKE needs a text column, '${col.name}' holds ${col.kind}s`, op.pos);
      return { type: 'like', ...this.tested(col, 'string'), pattern: p.text, negated };
    }
    if (negated) fail(`expected IN or LIKE after NOT, got ${describe(op)}`, op.pos);
    if (op.kind !== 'op')
      fail(
        `expected an operator after '${col.name}', got ${describe(op)}`,
        op.pos,
        'use = != < <= > >= IS IN LIKE',
      );
    const v = this.peek();
    if (v.kind === 'word' && !KEYWORDS.has(v.text.toUpperCase())) {
      const other = this.column();
      if (other.kind !== col.kind || other.sql || col.sql || col.json || other.json)
        fail(`cannot compare '${col.name}' (${col.kind}) with '${other.name}' (${other.kind})`, other.pos);
      return {
        type: 'compare',
        ...this.tested(col),
        op: op.text,
        value: { kind: 'column', name: other.name },
      };
    }
    const lit = this.literal();
    this.checkType(col, lit);
    return {
      type: 'compare',
      ...this.tested(col, lit.kind),
      op: op.text,
      value: { kind: lit.kind, value: lit.value } as Literal,
    };
  }
  private not(): WhereNode {
    if (isKeyword(this.peek(), 'NOT')) {
      this.next();
      return { type: 'not', expr: this.not() };
    }
    if (this.peek().kind === 'lparen') {
      this.next();
      const e = this.or();
      this.expect('rparen', "')'");
      return e;
    }
    return this.test();
  }

  private and(): WhereNode {
    let left = this.not();
    while (isKeyword(this.peek(), 'AND')) {
      this.next();
      left = { type: 'and', left, right: this.not() };
    }
    return left;
  }

  or(): WhereNode {
    let left = this.and();
    while (isKeyword(this.peek(), 'OR')) {
      this.next();
      left = { type: 'or', left, right: this.and() };
    }
    return left;
  }
}

const sqlIdent = (name: string) => (/^[a-z_][a-z0-9_]*$/.test(name) ? name : `\`${name}\``);

function sqlLiteral(l: Literal): string {
  if (l.kind === 'string') return `'${l.value.replace(/'/g, "''")}'`;
  if (l.kind === 'boolean') return l.value ? 'TRUE' : 'FALSE';
  return String(l.value);
}

/** A literal as SQL; against a time column, epoch milliseconds or a date become a UTC timestamp. */
function valueSql(l: Literal, time: boolean | undefined): string {
  if (!time) return sqlLiteral(l);
  const ms = l.kind === 'number' ? l.value : Date.parse(String(l.value));
  return `arrow_cast(${Math.round(ms)}, 'Timestamp(Millisecond, Some("UTC"))')`;
}

const testedSql = (t: Tested) => t.sql ?? sqlIdent(t.column);

/** The SQL filter for a parsed tree (fully parenthesised; only names and values from the tree). */
export function toSql(node: WhereNode): string {
  switch (node.type) {
    case 'and':
    case 'or':
      return `(${toSql(node.left)} ${node.type.toUpperCase()} ${toSql(node.right)})`;
    case 'not':
      return `(NOT ${toSql(node.expr)})`;
    case 'null':
      return `(${testedSql(node)} IS ${node.negated ? 'NOT ' : ''}NULL)`;
    case 'in':
      return `(${testedSql(node)} ${node.negated ? 'NOT ' : ''}IN (${node.values.map((v) => valueSql(v, node.time)).join(', ')}))`;
    case 'like':
      return `(${testedSql(node)} ${node.negated ? 'NOT ' : ''}LIKE ${sqlLiteral({ kind: 'string', value: node.pattern })})`;
    case 'compare': {
      const op = node.op === '<>' ? '!=' : node.op;
      const v = node.value.kind === 'column' ? sqlIdent(node.value.name) : valueSql(node.value, node.time);
      return `(${testedSql(node)} ${op} ${v})`;
    }
  }
}

/** Column kinds of an Arrow schema (any object with `fields: { name, type }[]`). */
export function columnKinds(schema: {
  fields: readonly { name: string; type: unknown; metadata?: ReadonlyMap<string, string> }[];
}): Map<string, ColumnKind> {
  const kinds = new Map<string, ColumnKind>();
  for (const f of schema.fields) {
    kinds.set(f.name, kindOf(String(f.type), f.metadata?.get('ARROW:extension:name')));
  }
  return kinds;
}

function kindOf(type: string, extension: string | undefined): ColumnKind {
  if (extension === 'arrow.json' || extension === 'lance.json') return 'json';
  if (/^Timestamp/i.test(type)) return 'time';
  if (/^Map</i.test(type)) return 'map';
  if (/^(Large)?Utf8$/i.test(type)) return 'string';
  if (/^(U?Int\d+|Float\d+|Float|Double|Decimal)/i.test(type)) return 'number';
  if (/^Bool$/i.test(type)) return 'boolean';
  return 'other';
}

/** Validate `text` against `columns` and return the SQL to hand LanceDB. */
export function whereToSql(text: string, columns: ReadonlyMap<string, ColumnKind>): string {
  return toSql(parseWhere(text, columns));
}
