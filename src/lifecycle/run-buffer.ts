import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect } from '../buffer/connection.ts';
import { ExperienceBuffer } from '../buffer/experience-buffer.ts';
import type { ExperienceBufferConfigInput } from '../buffer/experience-config.ts';
import { decodeExperiences } from '../buffer/experience-table.ts';
import {
  ExperienceSampler,
  type SamplerState,
  type SamplingConfigInput,
} from '../buffer/sampling/sampler.ts';
import { writeFileAtomicSync } from '../core/atomic-file.ts';
import { type Experience, ExperienceSchema } from '../core/experience.ts';
import type { JsonValue } from '../core/task.ts';
import type { RunBuffer } from './rft-parts.ts';

export interface OpenRunBufferOptions {
  dbDir: string;
  runDir: string;
  runId: string;
  seed: number;
  buffer: Record<string, unknown>;
  sampling: Record<string, unknown>;
  batchSize: number;
  file?: string;
}

const HOLDBACK = 'holdback.jsonl';

/**
 * The run loop's view of the experience buffer: an ExperienceBuffer read through an
 * ExperienceSampler (strategy + optional replay-ratio limiter), plus the resume protocol.
 */
export async function openRunBuffer(opts: OpenRunBufferOptions): Promise<RunBuffer> {
  const where = opts.file ? { file: opts.file } : {};
  const bufferConfig = { seed: opts.seed, runId: opts.runId, ...opts.buffer } as ExperienceBufferConfigInput;
  const open = async () => {
    const buffer = await ExperienceBuffer.open(opts.dbDir, bufferConfig, { path: 'buffer', ...where });
    const sampler = await ExperienceSampler.create(
      opts.sampling as SamplingConfigInput,
      { buffer, dbDir: opts.dbDir, batchSize: opts.batchSize },
      { path: 'sampling', ...where },
    );
    return { buffer, sampler };
  };
  let { buffer, sampler } = await open();
  const holdbackFile = join(opts.runDir, HOLDBACK);

  return {
    async write(experiences) {
      if (experiences.length === 0) return;
      const r = await buffer.write(experiences);
      sampler.recordInsert(r.written);
    },
    async sample(n, ctx) {
      const batch = await sampler.sample(n, { step: ctx.trainStep, modelVersion: ctx.modelVersion });
      // The buffer records skipped rows in `rejected` itself; they come back here only to be counted.
      return {
        experiences: batch.experiences,
        weights: batch.weights,
        skipped: batch.skipped.length,
        ...(batch.blocked ? { blocked: batch.blocked } : {}),
      };
    },
    async ack(trainStep) {
      await sampler.ack(trainStep);
    },
    async resume(exploreStep, trainStep) {
      await sampler.recover(trainStep);
      // Rows written after the checkpoint's explorer step are saved to the run folder first (so a
      // second crash loses nothing), then taken out of the table until the explorer re-writes them.
      const later = decodeExperiences(
        await buffer.table.query().where(`explore_step > ${exploreStep}`).toArrow(),
      ).map((s) => s.exp);
      const earlier = existsSync(holdbackFile)
        ? readFileSync(holdbackFile, 'utf8')
            .split('\n')
            .filter((l) => l.trim() !== '')
            .map((l) => ExperienceSchema.parse(JSON.parse(l, (_k, v) => (v === 'NaN' ? Number.NaN : v))))
            .filter((e) => e.exploreStep > exploreStep)
        : [];
      const byId = new Map<string, Experience>();
      for (const e of [...earlier, ...later]) byId.set(e.id, e);
      const held = [...byId.values()];
      if (held.length > 0) {
        writeFileAtomicSync(
          holdbackFile,
          held
            .map((e) => JSON.stringify(e, (_k, v) => (typeof v === 'number' && Number.isNaN(v) ? 'NaN' : v)))
            .join('\n'),
        );
      }
      if (later.length > 0) {
        const table = buffer.config.table;
        await sampler.close();
        await buffer.close();
        await (await (await connect(opts.dbDir)).openTable(table)).delete(`explore_step > ${exploreStep}`);
        ({ buffer, sampler } = await open());
        await sampler.recover(trainStep);
      }
      return held;
    },
    count: async () => buffer.size,
    samplerState: () => sampler.state() as unknown as JsonValue,
    loadSamplerState: (state) => sampler.load(state as unknown as SamplerState),
    async close() {
      await sampler.close();
      await buffer.close();
    },
  };
}
