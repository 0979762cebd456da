import type { DuckDBConnection } from '@duckdb/node-api';
import { chainSql } from '../../src/engine/duckdb-columns.ts';
import type { ColumnarForm } from '../../src/operators/columnar/form.ts';
import { sqlString } from '../../src/operators/columnar/unicode-classes.ts';

/** Where a JSONL file's texts are: top-level keys of each line's object (the answer's optional). */
export interface JsonlTextKeys {
  prompt: string;
  answer: string | null;
}

/** What became of one line of the file in the engine's column-wise prefix. */
export type LineFate =
  /** Every step kept it: its texts after the maps. */
  | { fate: 'kept'; prompt: string; answer: string | null }
  /** Step `step` (index into the forms) dropped it, with the operator's own reason. */
  | { fate: 'dropped'; step: number; reason: string; prompt: string; answer: string | null }
  /**
   * The engine cannot treat it from step `from` on (a guard of that step, or from 0: not a JSON
   * object with a string prompt, a `\u` escape of a surrogate, a key given twice): the row path
   * reads the line and runs that step and the later ones. Blank lines come here too (from 0).
   */
  | { fate: 'rows'; from: number; text: string; prompt: string | null; answer: string | null };

/** One chunk of the file's lines, in file order: 1-based line numbers and their fates. */
export interface LineChunk {
  lines: number[];
  fates: LineFate[];
}

const jsonPath = (key: string) => sqlString(`$.${JSON.stringify(key)}`);

/**
 * The file's lines, numbered as the JSONL reader numbers them (1-based, blank lines counted), with
 * the prompt and answer DuckDB extracted where the line is one the engine may treat (`ok`).
 * DuckDB reads the file itself (read_text, split at line feeds; a trailing CR is dropped as the
 * reader drops it).
 */
function linesSource(file: string, keys: JsonlTextKeys, limits: JsonlLimits): string {
  const p = jsonPath(keys.prompt);
  const a = keys.answer === null ? null : jsonPath(keys.answer);
  const answerOk = a === null ? 'true' : `json_type(l, ${a}) = 'VARCHAR' AND NOT ${twice(keys.answer!)}`;
  const ok = [
    `strlen(l) <= ${limits.maxLineBytes}`,
    // Over-counts nesting (brackets inside strings count too): such lines go to the reader.
    `length(l) - length(regexp_replace(l, '[\\[{]', '', 'g')) <= ${limits.maxDepth}`,
    // Surrogates written as escapes: the row path keeps a lone one as it is, DuckDB does not.
    `NOT regexp_matches(l, '\\\\u[dD][89abcdefABCDEF]')`,
    // DuckDB's JSON functions drop a U+FEFF inside a string; JSON.parse keeps it.
    `NOT contains(l, chr(65279))`,
    `json_valid(l)`,
    `json_type(l) = 'OBJECT'`,
    `json_type(l, ${p}) = 'VARCHAR'`,
    `NOT ${twice(keys.prompt)}`,
    answerOk,
    // The mapping refuses a prompt that is empty or only JS whitespace.
    `regexp_matches(json_extract_string(l, ${p}), ${sqlString(`[^${JS_SPACE}]`)})`,
  ].join(' AND ');
  const lines =
    `SELECT generate_subscripts(ls, 1) AS n, unnest(ls) AS raw FROM ` +
    `(SELECT string_split(content, chr(10)) AS ls FROM read_text(${sqlString(file)}))`;
  const trimmed = `SELECT n, CASE WHEN suffix(raw, chr(13)) THEN raw[:-2] ELSE raw END AS l FROM (${lines})`;
  // CASE, not AND: DuckDB may evaluate every operand of an AND, and json_type fails on bad JSON.
  const checked = `SELECT n, l, CASE WHEN json_valid(l) THEN coalesce(${ok}, false) ELSE false END AS ok FROM (${trimmed})`;
  const answer = a === null ? 'NULL::VARCHAR' : `CASE WHEN ok THEN json_extract_string(l, ${a}) END`;
  return `SELECT n AS i, l, ok, CASE WHEN ok THEN json_extract_string(l, ${p}) END AS p0, ${answer} AS a0 FROM (${checked})`;
}

/** JS's `trim` whitespace (WhiteSpace and LineTerminator), as an RE2 class body. */
const JS_SPACE =
  '\\t\\n\\x{b}\\x{c}\\r \\x{a0}\\x{1680}\\x{2000}-\\x{200a}\\x{2028}\\x{2029}\\x{202f}\\x{205f}\\x{3000}\\x{feff}';

/** A key twice in one object: JSON.parse keeps the last, DuckDB's extractor the first. */
function twice(key: string): string {
  const k = sqlString(`${JSON.stringify(key).replace(/[\\^$.|?*+()[\]{}]/g, '\\$&')}\\s*:`);
  return `len(regexp_extract_all(l, ${k})) > 1`;
}

/** The JSONL reader's limits (read options): a line over them is the reader's to reject. */
export interface JsonlLimits {
  maxLineBytes: number;
  maxDepth: number;
}

/**
 * Run a chain of column-wise forms over a JSONL file that DuckDB reads itself, chunk by chunk,
 * in file order. Each line's fate is decided here with the forms' own verdicts, so a dropped
 * line's reason is the operator's text; what the engine cannot treat exactly is left to the row
 * path (`rows`) with the step to start from.
 */
export async function* scanJsonlPrefix(
  con: DuckDBConnection,
  forms: readonly ColumnarForm[],
  file: string,
  keys: JsonlTextKeys,
  limits: JsonlLimits,
): AsyncGenerator<LineChunk> {
  // The trailing line feed of a file makes one empty line more: a blank line, skipped by the reader.
  const sql = chainSql(forms, linesSource(file, keys, limits), ['l', 'ok', 'p0', 'a0']);
  const result = await con.stream(sql);
  for (;;) {
    const chunk = await result.fetchChunk();
    if (chunk === null || chunk.rowCount === 0) return;
    const cols = chunk.getColumns();
    yield decideChunk(forms, cols);
  }
}

/** Column layout: i, l, ok, p0, a0, then per step its guard and its text (map) or values (filter). */
function decideChunk(forms: readonly ColumnarForm[], cols: unknown[][]): LineChunk {
  const [ns, ls, oks, p0s, a0s] = cols as [
    bigint[],
    string[],
    boolean[],
    Array<string | null>,
    Array<string | null>,
  ];
  // A filter's SQL is built once here: building it is dear (large character classes).
  const widths = forms.map((f) => (f.kind === 'map' ? 1 : f.values('x').length));
  const lines: number[] = [];
  const fates: LineFate[] = [];
  for (let r = 0; r < ns.length; r++) {
    lines.push(Number(ns[r]));
    let prompt = p0s[r] ?? null;
    let answer = a0s[r] ?? null;
    if (oks[r] !== true) {
      fates.push({ fate: 'rows', from: 0, text: ls[r] ?? '', prompt: null, answer: null });
      continue;
    }
    let fate: LineFate | null = null;
    let c = 5;
    for (let s = 0; s < forms.length; s++) {
      const form = forms[s]!;
      const guard = cols[c++]![r] === true;
      const width = widths[s]!;
      if (fate === null && guard) fate = { fate: 'rows', from: s, text: ls[r]!, prompt, answer };
      if (fate === null && form.kind === 'map') {
        const text = cols[c]![r] as string | null;
        if (text !== null) {
          if (form.field === 'prompt') prompt = text;
          else answer = text;
        }
      } else if (fate === null && form.kind === 'filter') {
        const values = cols.slice(c, c + width).map((col) => Number((col[r] as number | bigint | null) ?? 0));
        const reason = form.verdict(values);
        if (reason !== null) fate = { fate: 'dropped', step: s, reason, prompt: prompt!, answer };
      }
      c += width;
    }
    fates.push(fate ?? { fate: 'kept', prompt: prompt!, answer });
  }
  return { lines, fates };
}
