import { tableFromIPC } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import {
  encodeTrainBatch,
  TRAIN_BATCH_SCHEMA,
  TrainBatchRowSchema,
  trainBatchRow,
} from '../../src/trainer/external/batch.ts';
import { exp } from '../buffer/experience-fixtures/make.ts';

/** Issue 42: the external-trainer batch carries what the off-policy correction needs. */
describe('train batch: off-policy columns', () => {
  const fresh = exp('f', { useCount: 1, logprobs: [-0.5, -0.25, -1] });
  const replayed = exp('r', { useCount: 3, logprobs: [-0.5, -0.25, -1], actionMask: [1, 0, 1] });
  const noLogprobs = exp('n', { useCount: 2, logprobs: [] });

  it('use_count, off_policy (use_count > 1) and behavior_logprob (Σ logprobs over action tokens)', () => {
    const rows = [fresh, replayed, noLogprobs].map(trainBatchRow);
    expect(rows.map((r) => [r.use_count, r.off_policy, r.behavior_logprob])).toEqual([
      [1, 0, -1.75],
      [3, 1, -1.5],
      [2, 1, Number.NaN],
    ]);
  });

  it('both encodings hold them, and the JSON rows parse with TrainBatchRowSchema', () => {
    const json = JSON.parse(new TextDecoder().decode(encodeTrainBatch([replayed, noLogprobs], 'json'))) as {
      rows: unknown[];
    };
    const parsed = json.rows.map((r) => TrainBatchRowSchema.parse(r));
    expect(parsed.map((r) => [r.off_policy, r.behavior_logprob])).toEqual([
      [1, -1.5],
      [1, null],
    ]);
    const t = tableFromIPC(encodeTrainBatch([fresh, replayed], 'arrow'));
    expect(t.schema.fields.map((f) => f.name)).toEqual(TRAIN_BATCH_SCHEMA.fields.map((f) => f.name));
    expect(t.schema.fields.slice(-3).map((f) => f.name)).toEqual([
      'use_count',
      'off_policy',
      'behavior_logprob',
    ]);
    expect([...t.getChild('off_policy')!.toArray()]).toEqual([0, 1]);
    expect([...t.getChild('behavior_logprob')!.toArray()]).toEqual([-1.75, -1.5]);
  });
});
