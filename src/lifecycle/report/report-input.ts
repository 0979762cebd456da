import type { RolloutExample } from '../run/evaluation/rollout-examples.ts';
import type { StepRecord } from '../run/step-record.ts';

// What the HTML report is drawn from, as a types-only module: report-html.ts renders the sections
// (report-sections/), and they read this without importing report-html.ts back.

export interface ReportInput {
  name: string;
  runId: string;
  config: unknown;
  history: StepRecord[];
  initialAccuracy?: number;
  finalAccuracy?: number;
  /** Evaluation-set numbers before the first step, by metric key (`eval/<set>/pass@k`). */
  initialEvaluation?: Record<string, number>;
  rolloutExamples?: RolloutExample[];
  describe: Record<string, string>;
  counters: Record<string, number>;
  durationMs: number;
}
