import { Registry } from '../../core/registry.ts';
import { lowestPriorityRemover } from './lowest-priority.ts';
import { oldestRemover } from './oldest.ts';
import type { RemoverDefinition } from './remover.ts';

/** Removers by config name (`buffer: { remover: { type: oldest } }`); a fresh registry per call (per run). */
export function removerRegistry(): Registry<RemoverDefinition> {
  const reg = new Registry<RemoverDefinition>('remover');
  reg.register(oldestRemover as RemoverDefinition);
  reg.register(lowestPriorityRemover as RemoverDefinition);
  return reg;
}
