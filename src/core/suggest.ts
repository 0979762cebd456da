/** Edit distance (Levenshtein), for "did you mean" hints on unknown names. */
export function editDistance(a: string, b: string): number {
  const prev = new Array<number>(b.length + 1);
  for (let j = 0; j <= b.length; j++) prev[j] = j;
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0]!;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const up = prev[j]!;
      prev[j] = Math.min(up + 1, prev[j - 1]! + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = up;
    }
  }
  return prev[b.length]!;
}

/** The known names closest to `name` (at most `limit`), nearest first; substring matches count as close. */
export function closestNames(name: string, known: readonly string[], limit = 3): string[] {
  const lower = name.toLowerCase();
  return known
    .map((k) => {
      const kl = k.toLowerCase();
      const d = kl.includes(lower) || lower.includes(kl) ? 0.5 : editDistance(lower, kl);
      return { k, d };
    })
    .filter(({ k, d }) => d <= Math.max(2, Math.ceil(k.length / 3)))
    .sort((x, y) => x.d - y.d || x.k.localeCompare(y.k))
    .slice(0, limit)
    .map(({ k }) => k);
}
