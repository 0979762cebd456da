import { join } from 'node:path';
import { z } from 'zod';
import { writeFileAtomic } from '../core/atomic-file.ts';
import { DataError } from '../core/errors.ts';
import { type JsonObject, JsonObjectSchema } from '../core/task.ts';
import { selectBackend } from './backend.ts';
import { type TinyPolicyConfig, TinyPolicyConfigSchema } from './config.ts';
import { paramSpecs } from './params.ts';
import { TinyPolicy, type TinyPolicyOptions } from './policy.ts';
import { readJsonManifest, readTensorFile, TensorEntrySchema, writeTensorFile } from './tensor-file.ts';
import { TINY_VOCAB } from './vocab.ts';

export const TINY_MANIFEST = 'manifest.json';
export const TINY_WEIGHTS = 'weights.bin';

/** `manifest.json` of a saved tiny policy: architecture, vocabulary, and where each tensor lies in weights.bin. */
export const TinyManifestSchema = z.object({
  format: z.literal('winnow-tiny-policy'),
  formatVersion: z.literal(1),
  config: TinyPolicyConfigSchema,
  vocab: z.array(z.string()),
  weightsFile: z.string().min(1),
  dtype: z.literal('float32'),
  byteOrder: z.literal('little'),
  sha256: z.string().length(64),
  tensors: z.array(TensorEntrySchema),
  /** Free-form facts about how the weights were made (warm-start recipe, accuracy…). */
  meta: JsonObjectSchema.default({}),
});
export type TinyManifest = z.infer<typeof TinyManifestSchema>;

/** Save a policy's weights as `dir/manifest.json` + `dir/weights.bin` (float32, little-endian). */
export async function saveTinyPolicy(
  policy: TinyPolicy,
  dir: string,
  meta: JsonObject = {},
): Promise<TinyManifest> {
  const values = policy.getWeights();
  const { entries, sha256 } = await writeTensorFile(
    dir,
    TINY_WEIGHTS,
    policy.specs.map((s, i) => ({ name: s.name, shape: s.shape, values: values[i]! })),
  );
  const manifest: TinyManifest = {
    format: 'winnow-tiny-policy',
    formatVersion: 1,
    config: policy.config,
    vocab: [...TINY_VOCAB],
    weightsFile: TINY_WEIGHTS,
    dtype: 'float32',
    byteOrder: 'little',
    sha256,
    tensors: entries,
    meta,
  };
  await writeFileAtomic(join(dir, TINY_MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}

/** Read a saved policy's config, weights (in spec order) and meta without building tensors. */
export async function readTinyWeights(
  dir: string,
): Promise<{ config: TinyPolicyConfig; values: Float32Array[]; meta: JsonObject }> {
  const manifestPath = join(dir, TINY_MANIFEST);
  const m = await readJsonManifest(manifestPath, TinyManifestSchema);
  if (m.vocab.join('\u0000') !== TINY_VOCAB.join('\u0000')) {
    throw new DataError({
      file: manifestPath,
      message: "vocab differs from this version's tiny-policy vocabulary",
    });
  }
  const tensors = await readTensorFile(dir, m.weightsFile, m.tensors, m.sha256);
  const byName = new Map(tensors.map((t) => [t.name, t] as const));
  const values = paramSpecs(m.config).map((spec) => {
    const t = byName.get(spec.name);
    if (t === undefined)
      throw new DataError({ file: manifestPath, message: `tensor ${spec.name} is missing` });
    if (t.shape.join(',') !== spec.shape.join(',')) {
      throw new DataError({
        file: manifestPath,
        message: `tensor ${spec.name} has shape [${t.shape.join(', ')}], expected [${spec.shape.join(', ')}]`,
      });
    }
    return t.values;
  });
  return { config: m.config, values, meta: m.meta };
}

/** Build a TinyPolicy from a directory written by saveTinyPolicy (selecting the tf backend first). */
export async function loadTinyPolicy(dir: string, options: TinyPolicyOptions = {}): Promise<TinyPolicy> {
  const { config, values } = await readTinyWeights(dir);
  await selectBackend(options.backend === undefined ? {} : { prefer: options.backend });
  return new TinyPolicy(config, options, values);
}
