/** A rejected row's payload as JSON text (rows that cannot be serialised are kept as their string form). */
export function payloadOf(row: unknown): string {
  try {
    return JSON.stringify(row);
  } catch {
    return String(row);
  }
}
