import { LanceDedupIndexStore } from '../buffer/dedup-index.ts';
import { LanceReferenceTables } from '../buffer/reference-tables.ts';
import { Registry } from '../core/registry.ts';
import type { Task } from '../core/task.ts';
import type { OperatorDefinition } from '../operators/operator.ts';
import { decontaminateOp, decontaminateOperator } from '../operators/task/decontaminate.ts';

/**
 * The operator registry a task pipeline builds its graph from, with the run's resources lent to
 * the built-ins that need them: decontaminate gets the database's dedup index, its task tables and
 * the config folder. Operators never open storage themselves (they do not import the buffer), so the run
 * hands it over here. Only the built-in definition is swapped; a user's own registration stays.
 * Nothing is opened: the index table is read when the operator first runs and written when it flushes.
 */
export function withRunResources(
  registry: Registry<OperatorDefinition<Task, unknown>>,
  run: { dbDir: string; baseDir: string },
): Registry<OperatorDefinition<Task, unknown>> {
  if (!registry.has('decontaminate') || registry.get('decontaminate') !== decontaminateOp) return registry;
  const lent = decontaminateOperator({
    index: new LanceDedupIndexStore(run.dbDir),
    tables: new LanceReferenceTables(),
    dbDir: run.dbDir,
    baseDir: run.baseDir,
  });
  const out = new Registry<OperatorDefinition<Task, unknown>>(registry.what);
  for (const d of registry.all())
    out.register(d === decontaminateOp ? (lent as OperatorDefinition<Task, unknown>) : d);
  return out;
}
