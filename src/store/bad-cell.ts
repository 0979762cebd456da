/**
 * A stored cell that cannot be decoded (malformed JSON, a non-numeric feature…), typically in a row
 * written by another tool. Decoders return these beside the good rows instead of throwing, so one
 * foreign row never hides the rest of a table.
 */
export interface BadCell {
  table: string;
  /** The row's `id` ('' when the row has none). */
  id: string;
  column: string;
  reason: string;
}

/** One line per bad row: `table 'tasks' row 'x': features: not valid JSON (…); meta: …`. */
export function describeBadRow(cells: readonly BadCell[]): string {
  const first = cells[0];
  if (!first) return '';
  const parts = cells.map((c) => `${c.column}: ${c.reason}`).join('; ');
  return `table '${first.table}' row '${first.id}': ${parts}`;
}

/** Bad cells grouped by row id, in first-seen order. */
export function badRows(cells: readonly BadCell[]): BadCell[][] {
  const byId = new Map<string, BadCell[]>();
  for (const c of cells) {
    const list = byId.get(c.id);
    if (list) list.push(c);
    else byId.set(c.id, [c]);
  }
  return [...byId.values()];
}

/** Parse a JSON cell; a parse failure becomes a short reason (no stack, the cell's head quoted). */
export function parseJsonCell(text: string): { ok: true; value: unknown } | { ok: false; reason: string } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (err) {
    const head = text.length > 40 ? `${text.slice(0, 40)}…` : text;
    return { ok: false, reason: `not valid JSON (${(err as Error).message}): ${JSON.stringify(head)}` };
  }
}
