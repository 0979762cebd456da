/** One job that waited for the rate limiter's bound before the coordinator submitted it. */
export interface AdmissionWait {
  step: number;
  taskId: string;
  /** Jobs of the step running (submitted, not finished) when it had to wait. */
  running: number;
  /** The bound that held it back (when it started to wait). */
  bound: number;
  /** The buffer's rate limiter refused even one group then: the step went on one job at a time. */
  refused: boolean;
  ms: number;
}

/** One step's backpressure, as `<runDir>/scale-backpressure.jsonl` records it. */
export interface StepAdmission {
  step: number;
  /** Bound on jobs running at once, as first computed for the step. */
  bound: number;
  /** The most jobs that ran at once. */
  maxRunning: number;
  waits: AdmissionWait[];
}

export interface AdmissionOptions {
  /** The run's own cap (`--max-in-flight`, else the step's task groups). */
  maxInFlight: number;
  /** Experiences one job inserts (explorer.repeat). */
  groupSize: number;
  /** The buffer's rate limiter: may `k` more experiences be inserted now? (absent: no limiter). */
  canInsert?: (k: number) => boolean;
}

/**
 * Backpressure from the buffer's rate limiter, per job. Before each rollout job the coordinator
 * asks how many groups the limiter would accept into the buffer now (the largest g with
 * `canInsert(g × groupSize)`), and keeps at most that many jobs running, never more than the run's
 * own cap. So workers never produce faster than the buffer's samples-per-insert band lets the
 * trainer consume, however many join; the bound is asked again whenever a job finishes (the
 * trainer may have sampled meanwhile). When the limiter refuses even one group, the step still
 * goes on, one job at a time — the single-process run writes such a step too, and nothing but the
 * step's end lets the trainer sample in sync mode — and the wait is recorded as `refused`.
 */
export class Admission {
  private readonly o: AdmissionOptions;
  private running = 0;
  private wakers: Array<() => void> = [];

  constructor(o: AdmissionOptions) {
    this.o = o;
  }

  /** Jobs that may run at once now: the limiter's groups, clamped to [1, maxInFlight]. */
  bound(): { bound: number; refused: boolean } {
    const cap = Math.max(1, this.o.maxInFlight);
    const can = this.o.canInsert;
    if (!can) return { bound: cap, refused: false };
    let g = 0;
    // canInsert is monotone in k: count up until it refuses (cap is small: a step's groups).
    while (g < cap && can((g + 1) * this.o.groupSize)) g++;
    return { bound: Math.max(1, g), refused: g === 0 };
  }

  /** Run jobs 0…count−1 in order with at most `bound()` running at once; every wait is recorded. */
  async run(
    count: number,
    job: (i: number) => Promise<void>,
    meta: { step: number; taskId: (i: number) => string },
  ): Promise<StepAdmission> {
    const record: StepAdmission = { step: meta.step, bound: this.bound().bound, maxRunning: 0, waits: [] };
    const all: Promise<void>[] = [];
    for (let i = 0; i < count; i++) {
      let b = this.bound();
      if (this.running >= b.bound) {
        // Recorded as it was when the job had to wait: the bound that held it back.
        const t0 = performance.now();
        const held = { running: this.running, bound: b.bound, refused: b.refused };
        while (this.running >= b.bound) {
          await new Promise<void>((r) => this.wakers.push(r));
          b = this.bound();
        }
        record.waits.push({
          step: meta.step,
          taskId: meta.taskId(i),
          ...held,
          ms: Math.round(performance.now() - t0),
        });
      }
      this.running++;
      record.maxRunning = Math.max(record.maxRunning, this.running);
      all.push(
        job(i).finally(() => {
          this.running--;
          for (const w of this.wakers.splice(0)) w();
        }),
      );
    }
    await Promise.all(all);
    return record;
  }
}
