import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ConfigError, DataError } from '../core/errors.ts';
import type { ModelBuildContext, ModelHandle } from '../explorer/models/model-definition.ts';
import { currentBackend } from './backend.ts';
import type { TinyPolicy } from './policy.ts';
import { loadTinyPolicy, readTinyWeights, saveTinyPolicy, TINY_MANIFEST } from './weights-file.ts';

/** What trainers find in `ModelHandle.trainable` for the tiny policy. */
export interface TinyTrainable {
  kind: 'tiny';
  policy: TinyPolicy;
}

/**
 * Load the tiny policy a run explores and trains with. The trainer updates `trainerPolicy`; the
 * explorer samples from its own copy, which `sync` refreshes — so between syncs the explorer
 * really is off-policy.
 */
export async function createTinyModelHandle(
  params: { path: string },
  ctx: ModelBuildContext,
): Promise<ModelHandle & { trainable: TinyTrainable }> {
  const dir = resolve(ctx.baseDir, params.path);
  const trainerPolicy = await loadCheckpoint(dir, ctx);
  const explorerPolicy = trainerPolicy.clone();
  const backend = await currentBackend();
  return {
    rollout: explorerPolicy,
    description: `tiny policy (${dir}), tf backend ${backend?.backend ?? 'none'}`,
    trainable: { kind: 'tiny', policy: trainerPolicy },
    async sync(trainerVersion) {
      explorerPolicy.setWeights(trainerPolicy.getWeights());
      return trainerVersion;
    },
    async saveExplorer(to) {
      await saveTinyPolicy(explorerPolicy, to);
    },
    async loadExplorer(from) {
      explorerPolicy.setWeights((await readTinyWeights(from)).values);
    },
    dispose() {
      explorerPolicy.dispose();
      trainerPolicy.dispose();
    },
  };
}

/** A missing or broken checkpoint is a config mistake: name the key and the folder, not a stack. */
async function loadCheckpoint(dir: string, ctx: ModelBuildContext): Promise<TinyPolicy> {
  const where = { path: `${ctx.path}.params.path`, ...(ctx.file ? { file: ctx.file } : {}) };
  const hint = `a folder written by saveTinyPolicy (${TINY_MANIFEST} + weights.bin), e.g. datasets/arithmetic/warm-start`;
  if (!existsSync(dir) || !statSync(dir).isDirectory()) {
    throw new ConfigError({ ...where, message: `no tiny-policy folder at ${dir}`, hint });
  }
  if (!existsSync(join(dir, TINY_MANIFEST))) {
    throw new ConfigError({ ...where, message: `${dir} holds no ${TINY_MANIFEST}`, hint });
  }
  try {
    return await loadTinyPolicy(dir, { sampleSeed: ctx.seed });
  } catch (err) {
    if (err instanceof DataError) {
      throw new ConfigError({ ...where, message: `cannot load the tiny policy: ${err.message}`, hint });
    }
    throw err;
  }
}
