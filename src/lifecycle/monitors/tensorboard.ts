import { closeSync, fsyncSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import type { StepRecord } from '../rft-runner.ts';
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
 * `<run folder>/<dir>/events.out.tfevents.*`: every number of every step record as a TensorBoard
 * scalar (tag = the metrics.jsonl key), readable by `tensorboard --logdir .winnow/runs` as it is.
 * Steps are written as they finish where the run reports them to monitors, and all at the end
 * (with the measurements before the first step as step 0, when nothing was written live).
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
      onStep: (record: StepRecord) => file.step(record.step, scalarsOf(record), Date.now() / 1000),
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
