import { parseConfig } from '../../core/config.ts';
import { Registry } from '../../core/registry.ts';
import type { DisciplineContext, DisciplineDefinition, ReadDiscipline } from './discipline.ts';
import { fifoDiscipline } from './fifo.ts';
import { lifoDiscipline } from './lifo.ts';
import { prioritizedDiscipline } from './prioritized.ts';
import { priorityDiscipline } from './priority.ts';
import { uniformDiscipline } from './uniform.ts';

/** Read disciplines by config name (`buffer: { discipline: priority, params: {…} }`). */
export const readDisciplines = new Registry<DisciplineDefinition>('read discipline');
for (const def of [
  fifoDiscipline,
  lifoDiscipline,
  priorityDiscipline,
  prioritizedDiscipline,
  uniformDiscipline,
])
  readDisciplines.register(def as DisciplineDefinition);

/**
 * Build a discipline from its config name and params. Errors name the config path
 * (`${path}.discipline` for an unknown name, `${path}.params.<key>` for a bad parameter).
 */
export function createDiscipline(
  name: string,
  params: unknown,
  ctx: DisciplineContext,
  path = 'buffer',
  file?: string,
): ReadDiscipline {
  const def = readDisciplines.get(name, path ? `${path}.discipline` : 'discipline', file);
  const parsed = parseConfig(def.params, params ?? {}, {
    path: path ? `${path}.params` : 'params',
    ...(file ? { file } : {}),
  });
  return def.create(parsed, ctx);
}
