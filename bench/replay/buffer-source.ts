// The learner's batches through a real experience buffer (LanceDB on disk): each step's fresh rows
// are written, the method's sampler chooses what the update trains on (fresh and replayed rows,
// leased), and the leases are acknowledged after the update, as a `winnow run` does.
import { ExperienceBuffer } from '../../src/buffer/experience-buffer.ts';
import type { Experience } from '../../src/core/experience.ts';
import type { BatchSource } from '../learning-curriculum/learner.ts';
import { type ReplayMethod, samplerFor } from './methods.ts';

export class ReplayBufferSource implements BatchSource {
  readonly trainer: ReplayMethod['trainer'];
  private readonly buffer: ExperienceBuffer;
  private readonly request: number;
  private constructor(buffer: ExperienceBuffer, request: number, trainer: ReplayMethod['trainer']) {
    this.buffer = buffer;
    this.request = request;
    this.trainer = trainer;
  }

  /** A fresh buffer in `dbDir` for one run of `method` (`plannedSteps`: the run's planned updates), its sampler seeded by the run's seed. */
  static async open(
    dbDir: string,
    method: ReplayMethod,
    seed: number,
    plannedSteps: number,
  ): Promise<ReplayBufferSource> {
    const buffer = await ExperienceBuffer.open(dbDir, { sampler: samplerFor(method, plannedSteps), seed });
    return new ReplayBufferSource(buffer, method.request, method.trainer);
  }

  async choose(fresh: Experience[], step: number): Promise<Experience[]> {
    if (fresh.length > 0) await this.buffer.write(fresh);
    const n = Math.round(fresh.length * this.request);
    if (n === 0) return [];
    return (await this.buffer.sample(n, { step })).experiences;
  }

  async trained(step: number): Promise<void> {
    await this.buffer.ack(step);
  }

  close(): Promise<void> {
    return this.buffer.close();
  }
}
