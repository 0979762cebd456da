import { parseConfig } from '../../core/config.ts';
import { Registry } from '../../core/registry.ts';
import { advantagePrioritySampler } from './advantage-priority.ts';
import { fifoSampler } from './fifo.ts';
import { lifoSampler } from './lifo.ts';
import type { Sampler, SamplerContext, SamplerDefinition } from './sampler.ts';
import { uniformSampler } from './uniform.ts';
import { versionPrioritySampler } from './version-priority.ts';

/**
 * Samplers by config name (`buffer: { sampler: { type: version_priority, params: {…} } }`). A fresh
 * registry per call: each run (or server) owns its own, so what one registers never leaks into another.
 */
export function samplerRegistry(): Registry<SamplerDefinition> {
  const reg = new Registry<SamplerDefinition>('sampler');
  for (const def of [
    fifoSampler,
    lifoSampler,
    uniformSampler,
    versionPrioritySampler,
    advantagePrioritySampler,
  ])
    reg.register(def as SamplerDefinition);
  return reg;
}

/**
 * Build a sampler from its config. Errors name the config path (`${path}.type` for an unknown
 * name, `${path}.params.<key>` for a bad parameter).
 */
export function createSampler(
  spec: { type: string; params: unknown },
  ctx: SamplerContext,
  where: { path: string; file?: string | undefined; registry?: Registry<SamplerDefinition> },
): Sampler {
  const registry = where.registry ?? samplerRegistry();
  const def = registry.get(spec.type, `${where.path}.type`, where.file);
  const params = parseConfig(def.params, spec.params ?? {}, {
    path: `${where.path}.params`,
    ...(where.file ? { file: where.file } : {}),
  });
  return def.create(params, ctx);
}
