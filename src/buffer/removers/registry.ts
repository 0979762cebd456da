import { parseConfig } from '../../core/config.ts';
import { Registry } from '../../core/registry.ts';
import { lowestPriorityRemover } from './lowest-priority.ts';
import { oldestRemover } from './oldest.ts';
import type { Remover, RemoverDefinition } from './remover.ts';

/** Removers by config name (`buffer: { remover: { type: oldest } }`); a fresh registry per call (per run). */
export function removerRegistry(): Registry<RemoverDefinition> {
  const reg = new Registry<RemoverDefinition>('remover');
  reg.register(oldestRemover as RemoverDefinition);
  reg.register(lowestPriorityRemover as RemoverDefinition);
  return reg;
}

export function createRemover(
  spec: { type: string; params: unknown },
  where: { path: string; file?: string | undefined; registry?: Registry<RemoverDefinition> },
): Remover {
  const def = (where.registry ?? removerRegistry()).get(spec.type, `${where.path}.type`, where.file);
  const params = parseConfig(def.params, spec.params ?? {}, {
    path: `${where.path}.params`,
    ...(where.file ? { file: where.file } : {}),
  });
  return def.create(params);
}
