import { type DuckDBConnection, DuckDBInstance, LIST, listValue, VARCHAR } from '@duckdb/node-api';
import type { ColumnarForm } from '../operators/columnar/form.ts';
import { re2Class, sqlString } from '../operators/columnar/unicode-classes.ts';

/** What the engine computed for one batch: per step, per row (index into the batch sent). */
export interface ColumnarOutput {
  /** Per step: true where the row holds a character the step's SQL does not treat exactly. */
  rowWise: boolean[][];
  /** Per map step: the new text where it changed, else null. */
  texts: Array<Array<string | null> | null>;
  /** Per filter step: its values, one array of numbers per row. */
  values: Array<number[][] | null>;
}

/**
 * An in-process DuckDB that runs a chain of column-wise forms over a batch of texts in one query.
 * Texts go in as two lists (prompt, answer: null where a row has none) and come back as columns.
 */
export class DuckDBColumns {
  private readonly instance: DuckDBInstance;
  private readonly con: DuckDBConnection;

  private constructor(instance: DuckDBInstance, con: DuckDBConnection) {
    this.instance = instance;
    this.con = con;
  }

  static async open(threads?: number): Promise<DuckDBColumns> {
    const instance = await DuckDBInstance.create(':memory:', threads ? { threads: String(threads) } : {});
    return new DuckDBColumns(instance, await instance.connect());
  }

  async run(
    forms: readonly ColumnarForm[],
    prompts: ReadonlyArray<string | null>,
    answers: ReadonlyArray<string | null>,
  ): Promise<ColumnarOutput> {
    // The lists' type is given: inferred from their first item, a list starting with null is no list of text.
    const reader = await this.con.runAndReadAll(
      chainSql(forms, LIST_SOURCE, [], true),
      [listValue(prompts as Array<string | null>), listValue(answers as Array<string | null>)],
      [LIST(VARCHAR), LIST(VARCHAR)],
    );
    const cols = reader.getColumnsJS();
    const out: ColumnarOutput = { rowWise: [], texts: [], values: [] };
    let c = 1; // column 0 is the row index (the rows come back ordered by it)
    for (const form of forms) {
      out.rowWise.push((cols[c++] as Array<boolean | null>).map((b) => b === true));
      if (form.kind === 'map') {
        out.texts.push(cols[c++] as Array<string | null>);
        out.values.push(null);
      } else {
        const k = form.values('x').length;
        const per = cols.slice(c, c + k) as Array<Array<number | bigint | null>>;
        c += k;
        out.texts.push(null);
        out.values.push(prompts.map((_, i) => per.map((col) => Number(col[i] ?? 0))));
      }
    }
    return out;
  }

  close(): void {
    this.con.closeSync();
    this.instance.closeSync();
  }
}

/** The text a step reads, as readText makes it from the current prompt and answer columns. */
function fieldSql(field: ColumnarForm['field'], p: string, a: string): string {
  if (field === 'prompt') return p;
  if (field === 'answer') return `coalesce(${a}, '')`;
  return `CASE WHEN ${a} IS NULL THEN ${p} ELSE ${p} || chr(10) || ${a} END`;
}

/** The rows of a batch bound as two lists ($1 prompts, $2 answers), numbered from 0. */
const LIST_SOURCE = 'SELECT unnest(range(len($1))) AS i, unnest($1) AS p0, unnest($2) AS a0';

/**
 * One query: a CTE per step carrying the current prompt/answer, then every step's outputs.
 * `source` gives the rows as (i, p0, a0); `extra` are more of its columns to return after `i`.
 */
export function chainSql(
  forms: readonly ColumnarForm[],
  source = LIST_SOURCE,
  extra: readonly string[] = [],
  /** Compute each step's CTE once (a batch fits in memory): inlined, a map's text is recomputed for every later use. */
  materialize = false,
): string {
  const ctes = [`s0 AS (${source})`];
  const outputs: string[] = ['i', ...extra];
  let p = 'p0';
  let a = 'a0';
  forms.forEach((form, s) => {
    const text = fieldSql(form.field, p, a);
    const cols: string[] = [];
    const guard =
      form.rowWiseChars === null || form.rowWiseChars.length === 0
        ? 'false'
        : `coalesce(regexp_matches(${text}, ${sqlString(re2Class(form.rowWiseChars))}), false)`;
    cols.push(`${guard} AS g${s}`);
    outputs.push(`g${s}`);
    let nextP = p;
    let nextA = a;
    if (form.kind === 'map') {
      const col = form.field === 'prompt' ? p : a;
      const next = `${form.field === 'prompt' ? 'p' : 'a'}${s + 1}`;
      cols.push(`${form.sql(col)} AS ${next}`);
      outputs.push(`CASE WHEN ${next} IS DISTINCT FROM ${col} THEN ${next} END AS t${s}`);
      if (form.field === 'prompt') nextP = next;
      else nextA = next;
    } else {
      form.values(text).forEach((v, j) => {
        cols.push(`${v} AS v${s}_${j}`);
        outputs.push(`v${s}_${j}`);
      });
    }
    ctes.push(`s${s + 1} AS ${materialize ? 'MATERIALIZED ' : ''}(SELECT *, ${cols.join(', ')} FROM s${s})`);
    p = nextP;
    a = nextA;
  });
  return `WITH ${ctes.join(',\n')}\nSELECT ${outputs.join(', ')} FROM s${forms.length} ORDER BY i`;
}
