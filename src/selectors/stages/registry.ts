import { z } from 'zod';
import { ConfigError } from '../../core/errors.ts';
import { Registry } from '../../core/registry.ts';
import { DapoDsParamsSchema, DapoDsStage } from './dapo-ds.ts';
import { GresoParamsSchema, GresoStage } from './greso.ts';
import { SpeedParamsSchema, SpeedStage } from './speed.ts';
import type { PreRolloutStage } from './types.ts';

/** A pre-rollout stage a config can name: its zod parameters (defaults filled in) and a factory. */
export interface StageDefinition<P = unknown> {
  readonly name: string;
  readonly description: string;
  readonly params: z.ZodType<P>;
  create(params: P, seed: number): PreRolloutStage;
}

function defineStage<S extends z.ZodType>(def: {
  name: string;
  description: string;
  params: S;
  create(params: z.output<S>, seed: number): PreRolloutStage;
}): StageDefinition {
  return def as StageDefinition;
}

/** Pre-rollout stages by config name; a fresh registry per call (per run). */
export function stageRegistry(): Registry<StageDefinition> {
  const reg = new Registry<StageDefinition>('pre-rollout stage');
  reg.register(
    defineStage({
      name: 'dapo_ds',
      description: 'DAPO dynamic sampling: over-sample, keep groups with 0 < correct < G, refill rounds',
      params: DapoDsParamsSchema,
      create: (p) => new DapoDsStage(p),
    }),
  );
  reg.register(
    defineStage({
      name: 'greso',
      description: 'GRESO: skip prompts with z zero-variance groups in a row with probability 1 − p^z',
      params: GresoParamsSchema,
      create: (p, seed) => new GresoStage(p, seed),
    }),
  );
  reg.register(
    defineStage({
      name: 'speed',
      description: 'SPEED-RL: screen with a few rollouts, continue only prompts with 0 < pass rate < 1',
      params: SpeedParamsSchema,
      create: (p) => new SpeedStage(p),
    }),
  );
  return reg;
}

/** `{ type: greso, params: { … } }`, one entry of a stage list. */
export const StageConfigSchema = z.object({
  type: z.string().min(1),
  params: z.record(z.string(), z.unknown()).optional(),
});
export type StageConfig = z.infer<typeof StageConfigSchema>;

/** Validate a list of stage configs and build the stages (not yet initialised). */
export function buildStages(
  configs: readonly StageConfig[],
  seed: number,
  path = 'explorer.stages',
  registry: Registry<StageDefinition> = stageRegistry(),
): PreRolloutStage[] {
  return configs.map((c, i) => {
    const at = `${path}[${i}]`;
    const def = registry.get(c.type, `${at}.type`);
    const parsed = def.params.safeParse(c.params ?? {});
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new ConfigError({
        path: [at, 'params', ...issue.path.map(String)].join('.'),
        message: issue.message,
      });
    }
    return def.create(parsed.data, seed + i + 1);
  });
}
