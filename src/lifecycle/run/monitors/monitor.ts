import type { z } from 'zod';
import { definePlugin, type PluginDefinition } from '../../../core/plugin.ts';
import type { ReportInput } from '../../report/report-input.ts';
import type { StepRecord } from '../step-record.ts';

/** Where a monitor writes: the run's own folder. */
export interface MonitorContext {
  runDir: string;
  runId: string;
  baseDir: string;
  path: string;
}

/** What a monitor sees at the end of a run (or of a stopped part of one). */
export type RunSummary = ReportInput;

/**
 * A monitor watches a run: the numbers before the first step, every finished step, then the end. Monitors only observe; a monitor
 * that throws fails the run with its config path named (a broken report is not silently lost).
 */
export interface Monitor {
  readonly name: string;
  /** The numbers measured before the first step (held-out `accuracy`, `eval/<set>/…`), as step 0. */
  onStart?(initial: Record<string, number>): void | Promise<void>;
  /** Every finished step, right after its metrics.jsonl line is written. */
  onStep?(record: StepRecord): void | Promise<void>;
  /** Returns the files it wrote, for the run log. */
  onEnd?(summary: RunSummary): string[] | Promise<string[]>;
}

export type MonitorDefinition<P = unknown> = PluginDefinition<P, MonitorContext, Monitor>;

export function defineMonitor<S extends z.ZodType>(def: {
  name: string;
  description: string;
  params: S;
  create(params: z.output<S>, ctx: MonitorContext): Monitor | Promise<Monitor>;
}): MonitorDefinition<z.output<S>> {
  return definePlugin(def);
}
