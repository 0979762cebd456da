import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BufferParts, ResolvedPart } from '../buffer/buffer-parts.ts';
import { connect } from '../buffer/connection.ts';
import { ExperienceBuffer } from '../buffer/experience-buffer.ts';
import { DEFAULT_REJECTED_TABLE, type ExperienceBufferConfig } from '../buffer/experience-config.ts';
import { decodeExperiences } from '../buffer/experience-decode.ts';
import { ExperienceSampler, type SamplerState } from '../buffer/sampling/sampler.ts';
import type { StrategyDefinition } from '../buffer/sampling/strategy.ts';
import { writeFileAtomicSync } from '../core/atomic-file.ts';
import { type Experience, ExperienceSchema } from '../core/experience.ts';
import { resolvePlugin } from '../core/plugin.ts';
import type { JsonValue } from '../core/task.ts';
import type { RftConfig } from './rft-config.ts';
import type { RunBuffer } from './rft-parts.ts';
import type { RunRegistries } from './run-registries.ts';

/** The run config's buffer and sampling, resolved once at the door: built from, never parsed again. */
export interface RunBufferPlan {
  /** The buffer's storage settings, complete (the door's keys plus the run's table, seed and id). */
  config: ExperienceBufferConfig;
  parts: BufferParts;
  strategy: ResolvedPart<StrategyDefinition>;
  /** How the run log names the sampler (`version_priority`, `module:./s.ts#S`). */
  samplerLabel: string;
}

/**
 * Resolve the buffer's plug-in slots against the run's registries: a named sampler, remover or
 * sample strategy keeps the params the door parsed; a user module is imported and its params
 * parsed here (the first time). Reads only.
 */
export async function planRunBuffer(opts: {
  buffer: RftConfig['buffer'];
  table: string;
  sampling: RftConfig['sampling'];
  seed: number;
  runId: string;
  registries: RunRegistries;
  baseDir: string;
  file?: string | undefined;
}): Promise<RunBufferPlan> {
  const reg = opts.registries;
  const at = (path: string) => ({ baseDir: opts.baseDir, path, file: opts.file });
  const { sampler: samplerSlot, remover: removerSlot, table: _table, ...storage } = opts.buffer;
  const sampler = await resolvePlugin(samplerSlot, reg.samplers, at('buffer.sampler'));
  const remover = removerSlot ? await resolvePlugin(removerSlot, reg.removers, at('buffer.remover')) : null;
  const strategy = await resolvePlugin(opts.sampling, reg.strategies, at('sampling'));
  return {
    // The random stream is named after the role, not the table: the same config and seed draw the
    // same samples whatever the run's id (and so its table's name) is.
    config: {
      ...storage,
      table: opts.table,
      seed: opts.seed,
      runId: opts.runId,
      randomStream: 'experiences',
      rejectedTable: DEFAULT_REJECTED_TABLE,
      sampler: { type: sampler.label, params: sampler.params as Record<string, unknown> },
      ...(remover
        ? { remover: { type: remover.label, params: remover.params as Record<string, unknown> } }
        : {}),
    },
    parts: { sampler, remover },
    strategy,
    samplerLabel: sampler.label,
  };
}

export interface OpenRunBufferOptions {
  dbDir: string;
  runDir: string;
  plan: RunBufferPlan;
  batchSize: number;
  /** Registries the sample strategy's own buffers look their parts up in (a mix's other tables). */
  registries: RunRegistries;
}

const HOLDBACK = 'holdback.jsonl';

/**
 * The run loop's view of the experience buffer: an ExperienceBuffer read through an
 * ExperienceSampler (a strategy; the buffer owns the optional rate limiter), plus the resume protocol.
 */
export async function openRunBuffer(opts: OpenRunBufferOptions): Promise<RunBuffer> {
  const { plan } = opts;
  const options = { samplers: opts.registries.samplers, removers: opts.registries.removers };
  const open = async () => {
    const buffer = await ExperienceBuffer.openParsed(opts.dbDir, plan.config, plan.parts, options);
    const sampler = await ExperienceSampler.createResolved(plan.strategy, {
      buffer,
      dbDir: opts.dbDir,
      batchSize: opts.batchSize,
    });
    return { buffer, sampler };
  };
  let { buffer, sampler } = await open();
  const holdbackFile = join(opts.runDir, HOLDBACK);

  return {
    async write(experiences) {
      if (experiences.length === 0) return;
      // The buffer's rate limiter (buffer.rateLimiter) counts the inserts itself.
      await buffer.write(experiences);
    },
    canInsert: (k) => sampler.canInsert(k),
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
