import { Registry } from '../../core/registry.ts';
import type { Task } from '../../core/task.ts';
import type { OperatorDefinition } from '../../operators/operator.ts';
import { decontaminateOp, decontaminateOperator } from '../../operators/task/decontaminate.ts';
import { embedOp, embedOperator } from '../../operators/task/embed.ts';
import { semanticDedupOp, semanticDedupOperator } from '../../operators/task/semantic-dedup.ts';
import { LanceDedupIndexStore } from '../../store/dedup-index.ts';
import { LanceReferenceTables } from '../../store/reference-tables.ts';
import { LanceSemanticIndexStore } from '../../store/semantic-dedup-index.ts';

/**
 * The operator registry a task pipeline builds its graph from, with the run's resources lent to
 * the built-ins that need them: decontaminate gets the database's dedup index, its task tables and
 * the config folder; semantic_dedup and embed (its `table`) get a LanceDB vector store. Operators
 * never open storage themselves (they do not import the buffer), so the run hands it over here.
 * Only the built-in definition is swapped; a user's own registration stays. Nothing is opened
 * here: the index table is read when the operator first runs; what it records is held until
 * `land()`, which the pipeline calls once the run's tasks have landed (a failed run records
 * nothing).
 */
export function withRunResources(
  registry: Registry<OperatorDefinition<Task, unknown>>,
  run: { dbDir: string; baseDir: string },
): { registry: Registry<OperatorDefinition<Task, unknown>>; land(): Promise<void> } {
  const index = new LanceDedupIndexStore(run.dbDir, { deferWrites: true });
  // semantic_dedup searches its vectors in LanceDB: the run's database for the persisted index.
  const vectors = new LanceSemanticIndexStore(run.dbDir);
  const lentSemantic = semanticDedupOperator({ store: vectors });
  const lentEmbed = embedOperator({ sink: vectors });
  const lent = decontaminateOperator({
    index,
    tables: new LanceReferenceTables(),
    dbDir: run.dbDir,
    baseDir: run.baseDir,
  });
  const out = new Registry<OperatorDefinition<Task, unknown>>(registry.what);
  for (const d of registry.all()) {
    if (d === decontaminateOp) out.register(lent as OperatorDefinition<Task, unknown>);
    else if (d === semanticDedupOp) out.register(lentSemantic as OperatorDefinition<Task, unknown>);
    else if (d === embedOp) out.register(lentEmbed as OperatorDefinition<Task, unknown>);
    else out.register(d);
  }
  return {
    registry: out,
    land: async () => {
      await index.landPending();
      await vectors.landPending();
    },
  };
}
