// The exact Thompson step through the grid (shortlist 0 at scale) picks each task with the same
// probability as a Beta draw for every task.
import { describe, expect, it } from 'vitest';
import { Rng } from '../../src/core/rng.ts';
import { BotsSelector } from '../../src/selectors/bots.ts';
import { THOMPSON_TUNING } from '../../src/selectors/bots-thompson.ts';

function pool(n: number, seed: number): { f0: Float64Array; f1: Float64Array } {
  const rng = new Rng(seed);
  const f0 = new Float64Array(n);
  const f1 = new Float64Array(n);
  for (let k = 0; k < n; k++) {
    const x = Math.round(rng.float() * 16) / 16;
    const y = Math.round(rng.float() * 16) / 16;
    f0[k] = k % 29 === 3 ? Number.NaN : k % 4 === 1 ? 0 : Math.min(x, y);
    f1[k] = k % 7 === 2 ? Math.min(x, y) : Math.max(x, y);
  }
  return { f0, f1 };
}

/** Two selectors with the same posterior: one scanning every task, one through the grid. */
function pair(n: number, steps: Array<{ ids: number[]; r: number }>, f0Zero = false) {
  const { f0, f1 } = pool(n, 3);
  // Every task close to never solved by the weak model: nothing solved drives c below 0, and the
  // tasks with a wide gap to the strong model clamp (clipped groups).
  if (f0Zero)
    for (let k = 0; k < n; k++)
      if (!Number.isNaN(f0[k]!)) [f0[k], f1[k]] = [0.02, 0.1 + (0.9 * ((k * 37) % 101)) / 100];
  return [0, 4].map((grid) => {
    const s = new BotsSelector(grid + 1, { shortlist: 0, grid });
    s.init({
      ids: Array.from({ length: n }, (_, k) => `t${k}`),
      features: { weak_pass_rate: f0, strong_pass_rate: f1 },
    });
    for (const st of steps)
      s.feedback(
        st.ids.map((k) => ({ taskId: `t${k}`, rewards: st.r === 0 ? [0, 0, 0] : [st.r, st.r, 1 - st.r] })),
      );
    return s;
  }) as [BotsSelector, BotsSelector];
}

function frequencies(s: BotsSelector, n: number, take: number, trials: number): Float64Array {
  const f = new Float64Array(n);
  for (let t = 0; t < trials; t++) for (const id of s.select(take)) f[Number(id.slice(1))]! += 1 / trials;
  return f;
}

/** Every task's inclusion frequency through the grid against a draw for every task: the worst |z|. */
function worstZ(n: number, steps: ReadonlyArray<{ ids: number[]; r: number }>, f0Zero = false): number {
  const [full, grid] = pair(n, [...steps], f0Zero);
  if (f0Zero) expect(grid.c).toBeLessThan(0);
  const trials = 10_000;
  const want = frequencies(full, n, 8, trials);
  const got = frequencies(grid, n, 8, trials);
  let worst = 0;
  for (let k = 0; k < n; k++) {
    const p = (want[k]! + got[k]!) / 2;
    const sd = Math.sqrt((2 * p * (1 - p)) / trials) + 1e-9;
    worst = Math.max(worst, Math.abs(got[k]! - want[k]!) / sd);
  }
  return worst;
}

const INSIDE = Array.from({ length: 12 }, (_, t) => ({
  ids: [t, t + 40, t + 80, 3 * t + 5],
  r: (t % 3) / 3,
}));
const BELOW = Array.from({ length: 12 }, (_, t) => ({ ids: [t, t + 40], r: 0 }));

describe('bots: exact Thompson steps through the grid', () => {
  // 80 tasks: a |z| above 4.5 for any of them happens by chance about once in 1,500 runs.
  it('c inside [0, 1] (explicit tasks, the shared track): the same inclusion frequencies as a draw for every task', () => {
    expect(worstZ(80, INSIDE)).toBeLessThan(4.5);
  });

  it('c below 0 with every task clamping (clipped groups): the same inclusion frequencies', () => {
    expect(worstZ(80, BELOW, true)).toBeLessThan(4.5);
  });

  for (const force of ['tail', 'density'] as const)
    it(`every group through the ${force} bound: the same inclusion frequencies`, () => {
      THOMPSON_TUNING.force = force;
      THOMPSON_TUNING.direct = 1.01;
      try {
        expect(worstZ(80, INSIDE)).toBeLessThan(4.5);
        expect(worstZ(80, BELOW, true)).toBeLessThan(4.5);
      } finally {
        THOMPSON_TUNING.force = null;
        THOMPSON_TUNING.direct = 0.25;
      }
    });

  it('a default step uses direct draws and bound candidates', () => {
    const [, grid] = pair(2000, [...INSIDE]);
    grid.select(8);
    expect(grid.lastPaths!.direct).toBeGreaterThan(0);
    expect(grid.lastPaths!.density + grid.lastPaths!.tail).toBeGreaterThan(0);
  });

  it('with τ > 0 every task stays in the draw when the grid exists only for exact steps', () => {
    const { f0, f1 } = pool(200, 5);
    const drive = (grid: number) => {
      const s = new BotsSelector(9, { shortlist: 0, grid, tau: 0.2 });
      s.init({
        ids: Array.from({ length: 200 }, (_, k) => `t${k}`),
        features: { weak_pass_rate: f0, strong_pass_rate: f1 },
      });
      const out: string[][] = [];
      for (let t = 0; t < 10; t++) {
        const ids = s.select(8);
        out.push(ids);
        s.feedback(ids.map((taskId, i) => ({ taskId, rewards: [(t + i) % 2, 1, 0] })));
      }
      return out;
    };
    // With the grid (built because `grid` is set) the sequence is the full draw's, candidate for candidate.
    expect(drive(4)).toEqual(drive(0));
  });
});
