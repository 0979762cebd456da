import * as arrow from 'apache-arrow';
import { numericVector } from '../buffer/storage/experience-arrow.ts';
import type { Experience } from '../core/experience.ts';
import { tableToIpcStream } from '../io/arrow-ipc.ts';
import { TRAIN_BATCH_SCHEMA, trainBatchRow, trainBatchTable } from '../trainer/external/batch.ts';

/** The media type of an Arrow IPC stream (what `Accept` asks for). */
export const ARROW_STREAM = 'application/vnd.apache.arrow.stream';

/** The importance weight of each row (1 unless the sampler is prioritised). */
const WEIGHT = new arrow.Field('weight', new arrow.Float64(), false);

/**
 * A sampled batch as one Arrow IPC stream in the training-batch format external trainers read
 * (src/trainer/external/batch.ts, docs/trainers.md "The batch file"): the same columns and types,
 * per-token lists in the response layout, so one reader serves both — plus `weight`. The lease
 * also rides in the schema metadata (`winnow.lease`, `winnow.skipped`, `winnow.blocked`).
 */
export function batchToArrowStream(
  experiences: readonly Experience[],
  weights: readonly number[],
  meta: { lease: number; skipped: number; blocked?: string },
): Uint8Array {
  const base = trainBatchTable(experiences.map(trainBatchRow));
  const metadata = new Map<string, string>([
    ['winnow.lease', String(meta.lease)],
    ['winnow.skipped', String(meta.skipped)],
    ...(meta.blocked ? ([['winnow.blocked', meta.blocked]] as const) : []),
  ]);
  const schema = new arrow.Schema([...TRAIN_BATCH_SCHEMA.fields, WEIGHT], metadata);
  const weightData = numericVector(
    WEIGHT.type,
    experiences.map((_, i) => weights[i] ?? 1),
  ).data[0]!;
  const children = [...(base.batches[0]?.data.children ?? []), weightData];
  const data = arrow.makeData({
    type: new arrow.Struct(schema.fields),
    length: experiences.length,
    nullCount: 0,
    children,
  });
  return tableToIpcStream(new arrow.Table([new arrow.RecordBatch(schema, data)]));
}
