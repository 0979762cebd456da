// What each replay method cost beyond the rollouts the protocol charges: gradient updates, and the
// trainer's extra compute for replayed rows — rows trained per update (fresh and replayed), and the
// updates and rows trained against fifo's, per seed then averaged over the seeds.
import type { LearningCurve } from '../learning-curriculum/learner.ts';

export interface ReplayCharge {
  method: string;
  /** Gradient updates over the run (mean over seeds). */
  updates: number;
  /** Gradient updates over the run ÷ fifo's on the same seed. */
  updatesVsFifo: number;
  /** Rows the trainer trained on per update, and how many of them were replays (means over seeds). */
  trainedPerUpdate: number;
  replayedPerUpdate: number;
  /** Replayed share of the rows trained. */
  replayShare: number;
  /** Rows trained over the run ÷ fifo's on the same seed (the trainer's compute relative to no replay). */
  trainedVsFifo: number;
  /** Wall seconds of a run (evaluation included; the machine was shared, so only indicative). */
  seconds: number;
}

const mean = (xs: readonly number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : Number.NaN);

export function replayCharges(
  methods: readonly string[],
  curves: readonly LearningCurve[],
  baseline: string,
): ReplayCharge[] {
  const of = (name: string) => curves.filter((c) => c.selector === name);
  const updates = (c: LearningCurve) => c.points[c.points.length - 1]!.updates;
  const base = new Map(of(baseline).map((c) => [c.seed, c] as const));
  return methods.map((method) => {
    const mine = of(method);
    return {
      method,
      updates: mean(mine.map(updates)),
      updatesVsFifo: mean(
        mine.map((c) => {
          const b = base.get(c.seed);
          return b ? updates(c) / Math.max(1, updates(b)) : Number.NaN;
        }),
      ),
      trainedPerUpdate: mean(mine.map((c) => (c.trainedSamples ?? 0) / Math.max(1, updates(c)))),
      replayedPerUpdate: mean(mine.map((c) => (c.replayedSamples ?? 0) / Math.max(1, updates(c)))),
      replayShare: mean(mine.map((c) => (c.replayedSamples ?? 0) / Math.max(1, c.trainedSamples ?? 0))),
      trainedVsFifo: mean(
        mine.map((c) => (c.trainedSamples ?? 0) / Math.max(1, base.get(c.seed)?.trainedSamples ?? 0)),
      ),
      seconds: mean(mine.map((c) => c.seconds)),
    };
  });
}

/** The charges as a Markdown table (docs/buffer.md prints it under the protocol table). */
export function chargesMarkdown(charges: readonly ReplayCharge[]): string {
  const head = [
    'method',
    'updates',
    'updates ÷ fifo',
    'rows trained / update',
    'replayed / update',
    'replayed share',
    'rows trained ÷ fifo',
    's / run',
  ];
  const rows = charges.map((c) => [
    c.method,
    c.updates.toFixed(1),
    c.updatesVsFifo.toFixed(2),
    c.trainedPerUpdate.toFixed(1),
    c.replayedPerUpdate.toFixed(1),
    `${(c.replayShare * 100).toFixed(0)}%`,
    c.trainedVsFifo.toFixed(2),
    c.seconds.toFixed(0),
  ]);
  const line = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
  return [line(head), line(head.map(() => '---')), ...rows.map(line)].join('\n');
}
