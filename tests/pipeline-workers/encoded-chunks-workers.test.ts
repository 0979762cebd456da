import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { jsonlChunking } from '../../src/io/jsonl-chunks.ts';
import { runTaskPipeline } from '../../src/lifecycle/pipeline/task-pipeline.ts';
import { TaskPipelineConfigSchema } from '../../src/lifecycle/pipeline/task-pipeline-config.ts';
import { taskOperatorRegistry } from '../../src/operators/registries.ts';
import { autoWorkers, RowStage } from '../../src/pipeline-workers/row-stage.ts';
import { RejectedStore } from '../../src/store/rejected-store.ts';
import { TaskStore } from '../../src/store/task-store.ts';
import { tempDir } from '../helpers/tmp.ts';

// `workers: auto` over a JSONL input read in chunks: a chain that ends in exact_dedup with
// `checkIds: false` (a Data-Juicer recipe's document_deduplicator) takes the encoded way and lands
// what one thread lands, the writer's duplicate-id rejections included, whether or not the main
// thread steals chunks from the workers (RowStage.mayHelp forced either way).
const dir = tempDir('winnow-encoded-workers-');
const input = join(dir, 'rows.jsonl');
const rows: string[] = [];
for (let i = 0; i < 60; i++) {
  // Repeated ids under new texts (the writer drops them), repeated texts under new ids (dedup drops them).
  const id = i % 7 === 3 ? 'same' : `r${i}`;
  const text = i % 11 === 5 ? '数据清洗，the SAME text！' : `行 ${i}：数据清洗 row ${i}`;
  rows.push(JSON.stringify({ id, text }));
}
writeFileSync(input, `${rows.join('\n')}\n`);

let n = 0;
async function run(workers: number | 'auto', last: unknown) {
  const db = join(dir, `db${++n}`);
  const config = TaskPipelineConfigSchema.parse({
    name: `w-${n}`,
    workers,
    input: { path: input, batchSize: 8 },
    mapping: { taskset: 's', id: 'id', prompt: 'text' },
    operators: [{ op: 'normalize_punctuation' }, last],
    output: { maxRejectedShare: 1, commitRows: 16 },
    runsDir: join(dir, 'runs'),
  });
  const report = await runTaskPipeline(config, { baseDir: dir, dbDir: db, registry: taskOperatorRegistry() });
  const tasks = (await (await TaskStore.open(db)).read()).map((t) => [t.id, t.prompt, t.source]);
  const rejected = (await (await RejectedStore.open(db)).read()).map((r) => [
    r.step,
    r.row,
    r.rowId,
    r.reason,
  ]);
  return { report, tasks, rejected };
}

describe('workers: auto with chunks encoded on the workers', () => {
  afterEach(() => {
    jsonlChunking.bytes = 256 << 10;
    jsonlChunking.autoMinBytes = 16 << 20;
  });

  it.each([true, false])(
    'exact_dedup with checkIds: false lands what one thread lands (main thread steals: %s)',
    async (steals) => {
      jsonlChunking.bytes = 400;
      jsonlChunking.autoMinBytes = 0;
      const encoded = vi.spyOn(RowStage.prototype, 'runEncodedChunk');
      const mayHelp = vi.spyOn(RowStage.prototype, 'mayHelp', 'get').mockReturnValue(steals);
      const dedup = { op: 'exact_dedup', params: { unicode: 'none', lowercase: true, checkIds: false } };
      const auto = await run('auto', dedup);
      expect(encoded).toHaveBeenCalled();
      // Stolen chunks are asked for with `here` set; none without stealing.
      const stolen = encoded.mock.calls.filter((c) => c[1] === true).length;
      if (!steals) expect(stolen).toBe(0);
      encoded.mockRestore();
      mayHelp.mockRestore();
      const one = await run(0, dedup);
      expect(auto.report.workers).toBe(autoWorkers());
      expect(auto.tasks).toEqual(one.tasks);
      expect(auto.rejected).toEqual(one.rejected);
      // 8 repeats of id `same` (its first is kept), 5 repeated texts (their first is kept).
      expect(one.rejected.filter((r) => r[0] === 'write')).toHaveLength(7);
      expect(one.rejected.filter((r) => r[0] === 'exact_dedup')).toHaveLength(4);
      expect(auto.report.steps).toEqual(
        one.report.steps.map((s, i) => ({ ...s, ms: auto.report.steps[i]!.ms })),
      );
    },
    120_000,
  );

  it('keeps autoWorkers() for a chain that does not end in exact_dedup', async () => {
    jsonlChunking.bytes = 400;
    jsonlChunking.autoMinBytes = 0;
    const auto = await run('auto', { op: 'length_filter', params: { minChars: 5 } });
    expect(auto.report.workers).toBe(autoWorkers());
  }, 120_000);
});
