import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import type { StepRecord } from '../step-record.ts';
import { defineMonitor, type RunSummary } from './monitor.ts';
import { fileVersionEvent, scalarsEvent, tfRecord } from './tensorboard-events.ts';

/** The numbers of a step record as TensorBoard scalars (metrics.jsonl keys as tags; NaN and non-numbers left out). */
export function scalarsOf(rec: Record<string, unknown>): Array<[string, number]> {
  return Object.entries(rec).filter(
    (e): e is [string, number] => e[0] !== 'step' && typeof e[1] === 'number' && Number.isFinite(e[1]),
  );
}

/** Numbers measured before the first step (held-out accuracy, evaluation sets), as step 0. */
function stepZero(s: RunSummary): Array<[string, number]> {
  return [
    ...(s.initialAccuracy !== undefined ? [['accuracy', s.initialAccuracy] as [string, number]] : []),
    ...Object.entries(s.initialEvaluation ?? {}),
  ].filter(([, v]) => Number.isFinite(v));
}

let filesOpened = 0;

/**
 * One events file of a run: opened on the first write, one event per step, steps in increasing
 * order only. TensorBoard reads a step lower than the last as a restart and drops the later points
 * of its tags, so a step at or below the last written one (already written live) is skipped.
 */
class EventsFile {
  private fd: number | null = null;
  private lastStep = -1;
  readonly path: string;

  constructor(dir: string) {
    // TensorBoard's own naming: events.out.tfevents.<seconds>.<host>.<pid>.<n>.
    const seconds = Math.floor(Date.now() / 1000);
    this.path = join(dir, `events.out.tfevents.${seconds}.${hostname()}.${process.pid}.${++filesOpened}`);
  }

  private write(event: Buffer): void {
    if (this.fd === null) {
      mkdirSync(join(this.path, '..'), { recursive: true });
      this.fd = openSync(this.path, 'a');
      writeSync(this.fd, tfRecord(fileVersionEvent(Date.now() / 1000)));
    }
    writeSync(this.fd, tfRecord(event));
  }

  /** True until the first event is written. */
  get empty(): boolean {
    return this.fd === null;
  }

  step(step: number, scalars: Array<[string, number]>, wallTime: number): void {
    if (step <= this.lastStep || scalars.length === 0) return;
    this.lastStep = step;
    this.write(scalarsEvent(wallTime, step, scalars));
  }

  close(): void {
    if (this.fd === null) return;
    fsyncSync(this.fd);
    closeSync(this.fd);
    this.fd = null;
  }
}

/**
 * Steps of the run's metrics.jsonl before `step`: a resumed run's first live step comes after the
 * steps restored from its checkpoint, which go into the new file first (in order).
 */
function earlierSteps(runDir: string, step: number): Array<Record<string, unknown>> {
  const file = join(runDir, 'metrics.jsonl');
  if (!existsSync(file)) return [];
  const out: Array<Record<string, unknown>> = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    try {
      const rec = JSON.parse(line) as Record<string, unknown>;
      if (typeof rec.step === 'number' && rec.step < step) out.push(rec);
    } catch {
      // A line cut off by a crash: the step is in the history the run reports at its end.
    }
  }
  return out.sort((a, b) => (a.step as number) - (b.step as number));
}

/**
 * `<run folder>/<dir>/events.out.tfevents.*`: every number of every step record as a TensorBoard
 * scalar (tag = the metrics.jsonl key), readable by `tensorboard --logdir .winnow/runs` as it is.
 * Steps are written as they finish (the run loop calls `onStart` with the measurements before the
 * first step, written as step 0, then `onStep` after each metrics.jsonl line), so a running run's
 * file grows step by step; what was not written live is written at the end, in increasing order
 * (a lower step after a higher one reads as a restart in TensorBoard).
 */
export const tensorboardMonitor = defineMonitor({
  name: 'tensorboard',
  description:
    'writes TensorBoard event files (<run folder>/tensorboard/events.out.tfevents.*): every step metric as a scalar',
  params: z.strictObject({
    dir: z
      .string()
      .min(1)
      .default('tensorboard')
      .describe(
        'Folder inside the run folder for the event files (tensorboard --logdir points at it or above).',
      ),
  }),
  create: (p, ctx) => {
    const file = new EventsFile(join(ctx.runDir, p.dir));
    return {
      name: 'tensorboard',
      onStart: (initial) => file.step(0, scalarsOf(initial), Date.now() / 1000),
      onStep: (record: StepRecord) => {
        const now = Date.now() / 1000;
        if (file.empty)
          for (const rec of earlierSteps(ctx.runDir, record.step))
            file.step(rec.step as number, scalarsOf(rec), now);
        file.step(record.step, scalarsOf(record), now);
      },
      onEnd: (summary) => {
        // Wall times of steps not seen live: the run's start plus the time of the steps before.
        let wall = Date.now() / 1000 - summary.durationMs / 1000;
        file.step(0, stepZero(summary), wall);
        for (const rec of summary.history) {
          wall += (typeof rec.stepMs === 'number' ? rec.stepMs : 0) / 1000;
          file.step(rec.step, scalarsOf(rec), wall);
        }
        file.close();
        return [file.path];
      },
    };
  },
});
