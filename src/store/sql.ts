/** Quote a string literal for a LanceDB (DataFusion SQL) filter. */
export function sqlString(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}

/** `col IN ('a','b')` for a list of string keys. */
export function sqlIn(column: string, values: readonly string[]): string {
  return `${column} IN (${values.map(sqlString).join(',')})`;
}
