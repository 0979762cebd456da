// Shared by the BOTS tests: a group of 16 rewards with mean r, the save → load → continue check, and
// a plain O(N)-per-step implementation of the update equations to check the lazy one against.
import { expect } from 'vitest';
import type { BotsSelector } from '../../src/selectors/bots.ts';

/** 16 binary rewards whose mean is r (rounded up to a sixteenth). */
export const group = (r: number): number[] => Array.from({ length: 16 }, (_, i) => (i < r * 16 ? 1 : 0));

/** `calls` rounds of select(2) + feedback, two rounds per step, the mean reward cycling 0, ¼, ½, … through `cycle` values. */
function drive(s: BotsSelector, from: number, to: number, cycle: number): string[][] {
  const out: string[][] = [];
  for (let call = from; call < to; call++) {
    const ids = s.select(2);
    out.push(ids);
    s.feedback(
      ids.map((taskId, i) => ({ taskId, rewards: group(((call + i) % cycle) / 4) })),
      { step: Math.floor(call / 2) },
    );
  }
  return out;
}

/**
 * A selector saved after half of `calls` rounds, loaded into a fresh one and driven on makes the
 * same selections and ends in the same state as one driven through all of them. Returns the
 * selector whose state was saved.
 */
export function expectResumesExactly(make: () => BotsSelector, calls: number, cycle: number): BotsSelector {
  const whole = make();
  const expected = drive(whole, 0, calls, cycle);
  const first = make();
  const head = drive(first, 0, calls / 2, cycle);
  const second = make();
  second.load(JSON.parse(JSON.stringify(first.state())));
  expect([...head, ...drive(second, calls / 2, calls, cycle)]).toEqual(expected);
  expect(JSON.stringify(second.state())).toBe(JSON.stringify(whole.state()));
  return first;
}

/** A plain O(N)-per-step implementation of the update equations, to check the lazy one against. */
export function eagerReference(
  f0: number[],
  f1: number[],
  steps: Array<{ idx: number[]; r: number[] }>,
  p: { m: number; lambda: number; rho: number },
): { a: number[]; b: number[] } {
  const n = f0.length;
  const a = new Array<number>(n).fill(1);
  const b = new Array<number>(n).fill(1);
  let c: number | null = null;
  for (const st of steps) {
    const ok = st.idx.map((k, j) => [k, j] as const).filter(([k]) => !Number.isNaN(f0[k]!));
    if (ok.length > 0) {
      const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
      const mr = mean(ok.map(([, j]) => st.r[j]!));
      const m0 = mean(ok.map(([k]) => f0[k]!));
      const m1 = mean(ok.map(([k]) => f1[k]!));
      if (Math.abs(m1 - m0) >= 0.02) {
        const cn = Math.min(2, Math.max(-1, (mr - m0) / (m1 - m0)));
        c = c === null ? cn : 0.9 * c + 0.1 * cn;
      }
    }
    const { m, lambda, rho } = p;
    for (let k = 0; k < n; k++) {
      const j = st.idx.indexOf(k);
      if (j >= 0) {
        a[k] = (1 - lambda) * a[k]! + lambda + m * st.r[j]!;
        b[k] = (1 - lambda) * b[k]! + lambda + m * (1 - st.r[j]!);
        continue;
      }
      const pt =
        c === null || Number.isNaN(f0[k]!)
          ? Number.NaN
          : Math.min(1, Math.max(0, f0[k]! + c * (f1[k]! - f0[k]!)));
      a[k] = (1 - lambda) * a[k]! + lambda + (Number.isNaN(pt) ? 0 : rho * m * pt);
      b[k] = (1 - lambda) * b[k]! + lambda + (Number.isNaN(pt) ? 0 : rho * m * (1 - pt));
    }
  }
  return { a, b };
}

/**
 * Task indices by the shortlist's score — the normal approximation's −log density at p* = 0.5,
 * (mean − p*)²/(2v) + ½·ln v — best first, ties by index: the full sort the search must match.
 */
export function densityOrder(alpha: Float64Array, beta: Float64Array): number[] {
  const key = (k: number) => {
    const a = alpha[k]!;
    const sum = a + beta[k]!;
    const mean = a / sum;
    const v = (mean * (1 - mean)) / (sum + 1);
    return ((mean - 0.5) * (mean - 0.5)) / (2 * v) + 0.5 * Math.log(v);
  };
  return Array.from({ length: alpha.length }, (_, k) => k).sort((a, b) => key(a) - key(b) || a - b);
}

/** The selector's posterior equals the plain update equations' to 1e-9 relative, task by task. */
export function expectPlainPosterior(
  s: BotsSelector,
  f0: number[],
  f1: number[],
  steps: Array<{ idx: number[]; r: number[] }>,
): void {
  const want = eagerReference(f0, f1, steps, { m: 16, lambda: 0.1, rho: 0.1 });
  const got = s.posterior();
  for (let k = 0; k < f0.length; k++) {
    expect(Math.abs(got.alpha[k]! - want.a[k]!)).toBeLessThan(1e-9 * want.a[k]!);
    expect(Math.abs(got.beta[k]! - want.b[k]!)).toBeLessThan(1e-9 * want.b[k]!);
  }
}
