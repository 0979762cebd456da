/**
 * Which keys two parsed configs disagree on, and which of those change what a run computes. A
 * resumed run may change how long it runs or how it reports; anything else would mix two
 * experiments in one run's records.
 */

/** Keys whose change does not alter a run's results (prefix match on the dotted path). */
export const KEYS_THAT_DO_NOT_CHANGE_RESULTS = [
  'description',
  'lifecycle.steps',
  'lifecycle.checkpointEvery',
  'monitors',
  'explorer.concurrency',
  'explorer.timeoutMs',
  'explorer.retries',
  'explorer.backoffMs',
  'heldout.every',
  'evaluation.every',
] as const;

/** Dotted paths where `a` and `b` differ (leaves; arrays compared whole below their key). */
export function diffKeys(a: unknown, b: unknown, path = ''): string[] {
  if (Object.is(a, b)) return [];
  const isObj = (v: unknown): v is Record<string, unknown> =>
    v !== null && typeof v === 'object' && !Array.isArray(v);
  if (isObj(a) && isObj(b)) {
    // A plug-in slot that names another implementation differs in its name; its params follow.
    if ('type' in a && 'type' in b && a.type !== b.type) return [path ? `${path}.type` : 'type'];
    if ('module' in a && 'module' in b && a.module !== b.module) return [path ? `${path}.module` : 'module'];
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    return keys.flatMap((k) => diffKeys(a[k], b[k], path ? `${path}.${k}` : k));
  }
  if (Array.isArray(a) && Array.isArray(b) && JSON.stringify(a) === JSON.stringify(b)) return [];
  return [path || '<root>'];
}

const harmless = (key: string) =>
  KEYS_THAT_DO_NOT_CHANGE_RESULTS.some(
    (k) => key === k || key.startsWith(`${k}.`) || key.startsWith(`${k}[`),
  );

/** Split the differing keys into those that change results and those that do not. */
export function classifyDiff(before: unknown, after: unknown): { meaning: string[]; harmless: string[] } {
  const keys = diffKeys(before, after);
  return { meaning: keys.filter((k) => !harmless(k)), harmless: keys.filter(harmless) };
}

/** The part of a config that decides its results: what the meaning hash is taken over. */
export function meaningOf(config: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(config)) {
    if (harmless(k)) continue;
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
      const inner: Record<string, unknown> = {};
      for (const [k2, v2] of Object.entries(v as Record<string, unknown>))
        if (!harmless(`${k}.${k2}`)) inner[k2] = v2;
      out[k] = inner;
    } else out[k] = v;
  }
  return out;
}
