// The learner's batches through a real experience buffer (LanceDB on disk): each step's fresh rows
// are written, the method's sampler chooses what the update trains on (fresh and replayed rows,
// leased), and the leases are acknowledged after the update, as a `winnow run` does.
import { ExperienceBuffer } from '../../src/buffer/experience-buffer.ts';
import { type ReplaySchedule, replayScale } from '../../src/buffer/samplers/replay-schedule.ts';
import type { Experience } from '../../src/core/experience.ts';
import type { BatchSource } from '../learning-curriculum/learner.ts';
import { annealSchedule, type ReplayMethod, samplerFor } from './methods.ts';

export class ReplayBufferSource implements BatchSource {
  readonly trainer: ReplayMethod['trainer'];
  readonly replayUpdates: number;
  private readonly buffer: ExperienceBuffer;
  private readonly request: number;
  private readonly replayFrom: NonNullable<ReplayMethod['replayFrom']>;
  /** The rows the step's own update trained (for `replayFrom: step`). */
  private stepRows: Experience[] = [];
  /** How the extra updates' batches shrink over the run (`anneal`); none: always full. */
  private readonly anneal: ReplaySchedule | undefined;
  private constructor(buffer: ExperienceBuffer, method: ReplayMethod, lr: number, plannedSteps: number) {
    this.buffer = buffer;
    this.anneal = annealSchedule(method, plannedSteps);
    this.request = method.request;
    this.trainer = method.lrScale ? { ...method.trainer, lr: lr * method.lrScale } : method.trainer;
    this.replayUpdates = method.replayUpdates ?? 0;
    this.replayFrom = method.replayFrom ?? 'past';
  }

  /**
   * A fresh buffer in `dbDir` for one run of `method` (`plannedSteps`: the run's planned updates;
   * `lr`: the run's learning rate, scaled by the method's `lrScale`), its sampler seeded by the run's seed.
   */
  static async open(
    dbDir: string,
    method: ReplayMethod,
    seed: number,
    plannedSteps: number,
    lr: number,
  ): Promise<ReplayBufferSource> {
    const buffer = await ExperienceBuffer.open(dbDir, { sampler: samplerFor(method, plannedSteps), seed });
    return new ReplayBufferSource(buffer, method, lr, plannedSteps);
  }

  async choose(fresh: Experience[], step: number): Promise<Experience[]> {
    if (fresh.length > 0) await this.buffer.write(fresh);
    const n = Math.round(fresh.length * this.request);
    if (n === 0) return [];
    if (this.replayUpdates === 0) return (await this.buffer.sample(n, { step })).experiences;
    // With extra replay updates the step's own update is fifo's: exactly its fresh rows, in their
    // order (the sampler sees only the fresh pool; its order is put back to the rows' own).
    const order = new Map(fresh.map((e, i) => [e.id, i] as const));
    const rows = (await this.buffer.sample(n, { step, pool: 'fresh' })).experiences;
    this.stepRows = rows.sort((a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0));
    return this.stepRows;
  }

  /**
   * A replay-only batch for an extra update: up to `full` past rows by the method's sampler (or the
   * step's own rows again), scaled by the method's anneal schedule at `step` (0 rows: no update).
   */
  async replayBatch(step: number, full: number): Promise<Experience[]> {
    const size = this.anneal ? Math.round(full * replayScale(this.anneal, step)) : full;
    if (size === 0) return [];
    if (this.replayFrom === 'step')
      return this.stepRows.slice(0, size).map((e) => ({ ...e, useCount: (e.useCount ?? 1) + 1 }));
    return (await this.buffer.sample(size, { step, pool: 'past' })).experiences;
  }

  async trained(step: number): Promise<void> {
    await this.buffer.ack(step);
  }

  close(): Promise<void> {
    return this.buffer.close();
  }
}
