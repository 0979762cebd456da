import { BOS, EOS, UNK } from './backoff-lm.ts';

/**
 * Counts a back-off n-gram model from tokenised sentences the way KenLM's lmplz does in outline:
 * interpolated Kneser–Ney with one discount per order (D = n1 / (n1 + 2·n2) from the counts of
 * counts), lower orders on continuation counts (except n-grams that start with `<s>`, which keep
 * their raw counts), then written in back-off (ARPA) form. `minCount` prunes rare n-grams of order
 * 2 and up; the back-off weights are renormalised over what is kept, so every context still sums
 * to one. Deterministic: n-grams are written sorted.
 */

export interface BackoffBuildOptions {
  order?: number;
  /** Keep an n-gram of order ≥ 2 only when its raw count is at least this (lmplz --prune style). */
  minCount?: number;
}

interface Level {
  /** adjusted count of each n-gram of this order. */
  count: Map<string, number>;
  /** raw counts (for pruning). */
  raw: Map<string, number>;
}

const ctxOf = (g: string): string => g.slice(0, g.lastIndexOf(' '));
const tailOf = (g: string): string => g.slice(g.indexOf(' ') + 1);

function countLevels(sentences: Iterable<readonly string[]>, order: number): Level[] {
  const raw: Map<string, number>[] = Array.from({ length: order + 1 }, () => new Map());
  for (const s of sentences) {
    const seq = [BOS, ...s, EOS];
    for (let i = 1; i < seq.length; i++)
      for (let n = 1; n <= order && i - n + 1 >= 0; n++) {
        const g = seq.slice(i - n + 1, i + 1).join(' ');
        raw[n]!.set(g, (raw[n]!.get(g) ?? 0) + 1);
      }
  }
  const levels: Level[] = [{ count: new Map(), raw: new Map() }];
  for (let n = 1; n <= order; n++) {
    if (n === order) {
      levels.push({ count: raw[n]!, raw: raw[n]! });
      continue;
    }
    // Continuation count: how many distinct tokens precede g in the order-(n+1) n-grams.
    const cont = new Map<string, number>();
    for (const g of raw[n + 1]!.keys()) {
      const t = tailOf(g);
      cont.set(t, (cont.get(t) ?? 0) + 1);
    }
    const count = new Map<string, number>();
    for (const [g, c] of raw[n]!) count.set(g, g.startsWith(BOS) ? c : (cont.get(g) ?? c));
    levels.push({ count, raw: raw[n]! });
  }
  return levels;
}

function discount(count: Map<string, number>): number {
  let n1 = 0;
  let n2 = 0;
  for (const c of count.values()) {
    if (c === 1) n1++;
    else if (c === 2) n2++;
  }
  const d = n1 + 2 * n2 === 0 ? 0.5 : n1 / (n1 + 2 * n2);
  return Math.min(Math.max(d, 0.1), 0.95);
}

/** Per context: the total of its continuations' counts and how many distinct continuations. */
function contextTotals(count: Map<string, number>): Map<string, { total: number; types: number }> {
  const out = new Map<string, { total: number; types: number }>();
  for (const [g, c] of count) {
    const h = g.includes(' ') ? ctxOf(g) : '';
    const t = out.get(h) ?? { total: 0, types: 0 };
    t.total += c;
    t.types += 1;
    out.set(h, t);
  }
  return out;
}

/** The model as ARPA text (log10 probabilities and back-off weights, 4 decimals). */
export function buildBackoffArpa(
  sentences: readonly (readonly string[])[],
  opts: BackoffBuildOptions = {},
): string {
  const order = opts.order ?? 3;
  const minCount = opts.minCount ?? 1;
  const levels = countLevels(sentences, order);
  // prob[n]: the interpolated probability of every counted n-gram of order n.
  const prob: Map<string, number>[] = [new Map()];
  const vocab = [...levels[1]!.count.keys()].filter((t) => t !== BOS);
  const v = vocab.length + 1;
  {
    const d = discount(levels[1]!.count);
    let total = 0;
    for (const [t, c] of levels[1]!.count) if (t !== BOS) total += c;
    const gamma = (d * vocab.length) / total;
    const p1 = new Map<string, number>();
    for (const t of vocab) p1.set(t, Math.max(levels[1]!.count.get(t)! - d, 0) / total + gamma / v);
    p1.set(UNK, gamma / v);
    prob.push(p1);
  }
  const lowerProb = (g: string, n: number): number => {
    // The probability of g's last token after g's context shortened to order n.
    const parts = g.split(' ');
    for (let k = n; k >= 1; k--) {
      const p = prob[k]!.get(parts.slice(parts.length - k).join(' '));
      if (p !== undefined) return p;
    }
    return prob[1]!.get(UNK)!;
  };
  for (let n = 2; n <= order; n++) {
    const { count } = levels[n]!;
    const d = discount(count);
    const totals = contextTotals(count);
    const pn = new Map<string, number>();
    for (const [g, c] of count) {
      const t = totals.get(ctxOf(g))!;
      pn.set(g, Math.max(c - d, 0) / t.total + ((d * t.types) / t.total) * lowerProb(tailOf(g), n - 1));
    }
    prob.push(pn);
  }
  return writeArpa(prob, levels, order, minCount, lowerProb);
}

function writeArpa(
  prob: Map<string, number>[],
  levels: Level[],
  order: number,
  minCount: number,
  lowerProb: (g: string, n: number) => number,
): string {
  const kept: string[][] = [[]];
  kept.push([...prob[1]!.keys(), BOS].sort());
  for (let n = 2; n <= order; n++)
    kept.push([...prob[n]!.keys()].filter((g) => (levels[n]!.raw.get(g) ?? 0) >= minCount).sort());
  // Back-off weight of each context h (an n-gram of order < order): leftover mass over leftover lower mass.
  const bow = new Map<string, number>();
  for (let n = 2; n <= order; n++) {
    const sums = new Map<string, { hi: number; lo: number }>();
    for (const g of kept[n]!) {
      const h = ctxOf(g);
      const s = sums.get(h) ?? { hi: 0, lo: 0 };
      s.hi += prob[n]!.get(g)!;
      s.lo += lowerProb(tailOf(g), n - 1);
      sums.set(h, s);
    }
    for (const [h, s] of sums) bow.set(h, Math.max(1 - s.hi, 1e-12) / Math.max(1 - s.lo, 1e-12));
  }
  const f = (x: number) => x.toFixed(4);
  const out: string[] = ['\\data\\'];
  for (let n = 1; n <= order; n++) out.push(`ngram ${n}=${kept[n]!.length}`);
  for (let n = 1; n <= order; n++) {
    out.push('', `\\${n}-grams:`);
    for (const g of kept[n]!) {
      const p = g === BOS ? -99 : Math.log10(prob[n]!.get(g)!);
      const b = n < order ? bow.get(g) : undefined;
      out.push(b === undefined ? `${f(p)}\t${g}` : `${f(p)}\t${g}\t${f(Math.log10(b))}`);
    }
  }
  out.push('', '\\end\\', '');
  return out.join('\n');
}
