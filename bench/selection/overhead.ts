/**
 * Selector overhead: wall time of one select(32) + feedback(32 groups × 16 rewards) step at
 * N = 1e4, 1e5, 1e6 tasks, for random (the baseline) and every built-in selector (issue #15: p50 ≤ 5 ms
 * at 1M tasks).
 * Reward generation is not timed. Prints median and p95 ms per step and the ratio to random.
 *
 *   npx node bench/selection/overhead.ts [--sizes 10000,100000,1000000] [--steps 40] [--warmup 5]
 *                                        [--selectors random,bots,shared_ability] [--json]
 * (--warmup: untimed steps first; a long warm-up shows the cost once many tasks have been observed.)
 */
import { hashSeed, Rng } from '../../src/core/rng.ts';
import { createSelector, type SelectorConfig } from '../../src/selectors/registry.ts';
import type { Selector, SelectorTaskView, TaskFeedback } from '../../src/selectors/types.ts';

export interface OverheadRow {
  selector: string;
  n: number;
  medianMs: number;
  p95Ms: number;
  selectMedianMs: number;
  feedbackMedianMs: number;
  initMs: number;
  ratioToRandom: number;
}

/** Every built-in selector as the overhead bench configures it (random first: the baseline). */
export const OVERHEAD_SELECTORS: Record<string, SelectorConfig> = {
  random: { type: 'random' },
  sequential: { type: 'sequential' },
  shuffle: { type: 'shuffle' },
  offline_easy2hard: { type: 'offline_easy2hard', params: { feature: 'weak_pass_rate', order: 'desc' } },
  pass_rate: { type: 'pass_rate' },
  bots: { type: 'bots' },
  shared_ability: { type: 'shared_ability' },
  diverse: { type: 'diverse', params: { selector: { type: 'bots' } } },
  mixed: {
    type: 'mixed',
    params: {
      tasksets: [
        { taskset: 'a', selector: { type: 'bots' } },
        { taskset: 'b', selector: { type: 'pass_rate' } },
      ],
    },
  },
};

function syntheticView(n: number, seed: number): { view: SelectorTaskView; truth: Float64Array } {
  const rng = new Rng(hashSeed('overhead-view', seed));
  const ids = new Array<string>(n);
  const weak = new Float64Array(n);
  const strong = new Float64Array(n);
  const truth = new Float64Array(n);
  const domains = new Array<string>(n);
  const tasksets = new Array<string>(n);
  const embedding = new Array<Float64Array>(n);
  for (let k = 0; k < n; k++) {
    tasksets[k] = k % 2 === 0 ? 'a' : 'b';
    embedding[k] = Float64Array.from({ length: 8 }, () => rng.normal());
    ids[k] = `task-${k}`;
    const b = rng.normal(0, 2.5);
    const sig = (x: number) => 1 / (1 + Math.exp(-x));
    weak[k] = sig(2 * (-1.5 - b) + rng.normal(0, 0.3));
    strong[k] = sig(2 * (1 - b) + rng.normal(0, 0.3));
    truth[k] = sig(2 * (-0.8 - b));
    domains[k] = `d${k % 8}`;
  }
  const features = { weak_pass_rate: weak, strong_pass_rate: strong };
  const vectors = { 'meta.embedding': embedding };
  return { view: { ids, features, domains, tasksets, vectors }, truth };
}

function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * (s.length - 1) + 0.5))]!;
}

export function measureOverhead(
  opts: { sizes?: number[]; steps?: number; warmup?: number; selectors?: string[] } = {},
): OverheadRow[] {
  const sizes = opts.sizes ?? [10_000, 100_000, 1_000_000];
  const steps = opts.steps ?? 40;
  const warmup = opts.warmup ?? 5;
  const names = [...(opts.selectors ?? Object.keys(OVERHEAD_SELECTORS))];
  if (names[0] !== 'random') names.unshift('random');
  const rows: OverheadRow[] = [];
  for (const n of sizes) {
    const { view, truth } = syntheticView(n, 1);
    const index = new Map(view.ids.map((id, i) => [id, i] as const));
    let randomMedian = Number.NaN;
    for (const name of names) {
      const t0 = performance.now();
      const sel: Selector = createSelector(OVERHEAD_SELECTORS[name] ?? { type: name }, view, 7);
      const initMs = performance.now() - t0;
      const rng = new Rng(hashSeed('overhead-rewards', n, name));
      const total: number[] = [];
      const sel32: number[] = [];
      const fb: number[] = [];
      for (let s = 0; s < warmup + steps; s++) {
        const a = performance.now();
        const ids = sel.select(32, { step: s });
        const b = performance.now();
        const results: TaskFeedback[] = ids.map((taskId) => {
          const p = truth[index.get(taskId)!]!;
          const rewards = Array.from({ length: 16 }, () => (rng.float() < p ? 1 : 0));
          return { taskId, rewards };
        });
        const c = performance.now();
        sel.feedback(results, { step: s });
        const d = performance.now();
        if (s >= warmup) {
          sel32.push(b - a);
          fb.push(d - c);
          total.push(b - a + (d - c));
        }
      }
      const medianMs = quantile(total, 0.5);
      if (name === 'random') randomMedian = medianMs;
      rows.push({
        selector: name,
        n,
        medianMs,
        p95Ms: quantile(total, 0.95),
        selectMedianMs: quantile(sel32, 0.5),
        feedbackMedianMs: quantile(fb, 0.5),
        initMs,
        ratioToRandom: medianMs / randomMedian,
      });
    }
  }
  return rows;
}

export function formatOverheadTable(rows: readonly OverheadRow[]): string {
  const head = [
    'selector',
    'N',
    'median ms/step',
    'p95 ms/step',
    'select ms',
    'feedback ms',
    'init ms',
    '× random',
  ];
  const lines = rows.map((r) => [
    r.selector,
    r.n.toExponential(0).replace('e+', 'e'),
    r.medianMs.toFixed(2),
    r.p95Ms.toFixed(2),
    r.selectMedianMs.toFixed(2),
    r.feedbackMedianMs.toFixed(2),
    r.initMs.toFixed(0),
    Number.isFinite(r.ratioToRandom) ? r.ratioToRandom.toFixed(1) : '-',
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const fmt = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return [fmt(head), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...lines.map(fmt)].join('\n');
}

function argValue(argv: readonly string[], name: string): string | undefined {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const argv = process.argv.slice(2);
  const sizes = argValue(argv, '--sizes')?.split(',').map(Number);
  const steps = argValue(argv, '--steps');
  const warmup = argValue(argv, '--warmup');
  const selectors = argValue(argv, '--selectors')?.split(',');
  const rows = measureOverhead({
    ...(sizes ? { sizes } : {}),
    ...(steps ? { steps: Number(steps) } : {}),
    ...(warmup ? { warmup: Number(warmup) } : {}),
    ...(selectors ? { selectors } : {}),
  });
  if (argv.includes('--json')) console.log(JSON.stringify(rows, null, 2));
  else {
    console.log(
      `select(32) + feedback(32 × 16 rewards) per step, after ${warmup ?? 5} untimed steps (rewards generated outside the timing)`,
    );
    console.log(formatOverheadTable(rows));
  }
}
