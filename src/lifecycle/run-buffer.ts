import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect } from '../buffer/connection.ts';
import { ExperienceBuffer } from '../buffer/experience-buffer.ts';
import type { ExperienceBufferConfigInput } from '../buffer/experience-config.ts';
import { decodeExperiences } from '../buffer/experience-table.ts';
import type { RemoverDefinition } from '../buffer/removers/remover.ts';
import type { SamplerDefinition } from '../buffer/samplers/sampler.ts';
import {
  ExperienceSampler,
  type SamplerState,
  type SamplingConfigInput,
} from '../buffer/sampling/sampler.ts';
import type { StrategyDefinition } from '../buffer/sampling/strategy.ts';
import { writeFileAtomicSync } from '../core/atomic-file.ts';
import { type Experience, ExperienceSchema } from '../core/experience.ts';
import { normalizePlugin, type PluginConfig, resolvePlugin } from '../core/plugin.ts';
import { Registry } from '../core/registry.ts';
import type { JsonValue } from '../core/task.ts';
import type { RunBuffer } from './rft-parts.ts';
import { defaultRegistries, type RunRegistries } from './run-registries.ts';

export interface OpenRunBufferOptions {
  dbDir: string;
  runDir: string;
  runId: string;
  seed: number;
  /** The run config's `buffer` section (sampler and remover as plug-in slots) plus the table name. */
  buffer: Record<string, unknown> & { table: string };
  /** The run config's `sampling` slot. */
  sampling: PluginConfig;
  batchSize: number;
  /** Registries to resolve the slots in (user modules are resolved against `baseDir`). */
  registries?: RunRegistries;
  baseDir?: string;
  file?: string;
}

/**
 * Resolve the buffer's plug-in slots: a user-module sampler or sample strategy is registered under
 * its label (`module:./file.ts#export`) in a copy of the registry, so the buffer looks it up like a
 * built-in one.
 */
async function resolveBufferSlots(opts: OpenRunBufferOptions) {
  const reg = opts.registries ?? defaultRegistries();
  const ctx = (path: string) => ({ baseDir: opts.baseDir ?? process.cwd(), path, file: opts.file });
  const slot = (v: unknown) => (v === undefined ? undefined : normalizePlugin(v));
  const samplerSlot = slot(opts.buffer.sampler) ?? { type: 'fifo', params: {} };
  const sampler = await resolvePlugin(samplerSlot, reg.samplers, ctx('buffer.sampler'));
  const samplers = new Registry<SamplerDefinition>(reg.samplers.what);
  for (const d of reg.samplers.all()) samplers.register(d);
  if (!samplers.has(sampler.label)) samplers.register({ ...sampler.def, name: sampler.label });
  const removerSlot = slot(opts.buffer.remover);
  const remover = removerSlot ? await resolvePlugin(removerSlot, reg.removers, ctx('buffer.remover')) : null;
  const removers = new Registry<RemoverDefinition>(reg.removers.what);
  for (const d of reg.removers.all()) removers.register(d);
  if (remover && !removers.has(remover.label)) removers.register({ ...remover.def, name: remover.label });
  const strategy = await resolvePlugin(opts.sampling, reg.strategies, ctx('sampling'));
  // A user module's strategy joins this run's copy under its label (never a shared registry).
  const strategies = new Registry<StrategyDefinition>(reg.strategies.what);
  for (const d of reg.strategies.all()) strategies.register(d);
  if (!strategies.has(strategy.label)) strategies.register({ ...strategy.def, name: strategy.label });
  return {
    buffer: {
      ...opts.buffer,
      sampler: { type: sampler.label, params: sampler.params as Record<string, unknown> },
      ...(remover
        ? { remover: { type: remover.label, params: remover.params as Record<string, unknown> } }
        : {}),
    },
    sampling: { type: strategy.label, params: strategy.params as Record<string, unknown> },
    samplers,
    removers,
    strategies,
  };
}

const HOLDBACK = 'holdback.jsonl';

/**
 * The run loop's view of the experience buffer: an ExperienceBuffer read through an
 * ExperienceSampler (a strategy; the buffer owns the optional rate limiter), plus the resume protocol.
 */
export async function openRunBuffer(opts: OpenRunBufferOptions): Promise<RunBuffer> {
  const where = opts.file ? { file: opts.file } : {};
  const slots = await resolveBufferSlots(opts);
  // The random stream is named after the role, not the table: the same config and seed draw the
  // same samples whatever the run's id (and so its table's name) is.
  const bufferConfig = {
    seed: opts.seed,
    runId: opts.runId,
    randomStream: 'experiences',
    ...slots.buffer,
  } as ExperienceBufferConfigInput;
  const open = async () => {
    const buffer = await ExperienceBuffer.open(
      opts.dbDir,
      bufferConfig,
      { path: 'buffer', ...where },
      { samplers: slots.samplers, removers: slots.removers },
    );
    const sampler = await ExperienceSampler.create(
      slots.sampling as SamplingConfigInput,
      { buffer, dbDir: opts.dbDir, batchSize: opts.batchSize, strategies: slots.strategies },
      { path: 'sampling', ...where },
    );
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
