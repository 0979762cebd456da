import { Registry } from '../../core/registry.ts';
import { advantagePrioritySampler } from './advantage-priority.ts';
import { dotsReplaySampler } from './dots-replay.ts';
import { exgrpoSampler } from './exgrpo.ts';
import { fifoSampler } from './fifo.ts';
import { lifoSampler } from './lifo.ts';
import { repoSampler } from './repo.ts';
import type { SamplerDefinition } from './sampler.ts';
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
    exgrpoSampler,
    repoSampler,
    dotsReplaySampler,
  ])
    reg.register(def as SamplerDefinition);
  return reg;
}
