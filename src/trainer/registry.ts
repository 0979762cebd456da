import { join, resolve } from 'node:path';
import { z } from 'zod';
import { Registry } from '../core/registry.ts';
import { EXPORT_TRAINER_FORMAT_PARAMS, ExportTrainer } from './export-trainer.ts';
import { externalTrainer } from './external/external-entry.ts';
import { defineTrainer, type TrainerDefinition } from './trainer-definition.ts';

/** Writes each training batch as Parquet for a trainer in another language (docs/trainer.md). */
export const exportTrainer = defineTrainer({
  name: 'export',
  description: 'writes each training batch as a Parquet file for a trainer in another language',
  params: z.strictObject({
    dir: z.string().min(1).optional().describe('Folder for the batch files (default: <run folder>/export).'),
    compression: z.enum(['zstd', 'snappy', 'gzip', 'none']).default('zstd'),
    prefix: z.string().default('batch-'),
    ...EXPORT_TRAINER_FORMAT_PARAMS,
  }),
  create: (p, ctx) =>
    new ExportTrainer({
      ...p,
      dir: p.dir !== undefined ? resolve(ctx.baseDir, p.dir) : join(ctx.runDir, 'export'),
    }),
});

/**
 * Trainers by config name (`trainer: { type: export, params: {…} }`). The tiny policy's trainers
 * (policy_gradient, dpo) register themselves from src/tiny (registerTinyParts).
 */
export function trainerRegistry(): Registry<TrainerDefinition> {
  const reg = new Registry<TrainerDefinition>('trainer');
  for (const def of [exportTrainer, externalTrainer]) reg.register(def as TrainerDefinition);
  return reg;
}
