import type { TextField } from '../task/text-fields.ts';

/**
 * The column-wise form of a row-wise text operator: what an engine (src/engine) computes over a
 * whole column of texts instead of calling `process` row by row. A form must give the decisions
 * `process` gives, row for row; where its SQL cannot be exact for some characters it names them
 * (`rowWiseChars`), and a row holding any of them runs this step and every later one row-wise.
 * Expressions are DuckDB SQL over a VARCHAR column named by the caller.
 */
export type ColumnarForm = ColumnarMap | ColumnarFilter;

interface FormBase {
  /** Which text the step reads (and a map writes): `all` is for filters only. */
  readonly field: TextField;
  /** Code point ranges the SQL does not treat exactly; null when it treats every one exactly. */
  readonly rowWiseChars: ReadonlyArray<readonly [number, number]> | null;
}

/** A map: the new text as a SQL expression of the old one (the step's `changed` metric is counted by the engine). */
export interface ColumnarMap extends FormBase {
  readonly kind: 'map';
  readonly field: 'prompt' | 'answer';
  sql(col: string): string;
}

/**
 * A filter: SQL expressions for a few integers per row, and the verdict from them in JS (a drop
 * reason, or null to keep), so the reason's text is the operator's own, formatted by JS.
 */
export interface ColumnarFilter extends FormBase {
  readonly kind: 'filter';
  values(col: string): string[];
  verdict(values: readonly number[]): string | null;
}
