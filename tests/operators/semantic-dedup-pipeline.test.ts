import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runTaskPipelineFile } from '../../src/lifecycle/pipeline/task-pipeline.ts';
import { taskOperatorRegistry } from '../../src/operators/registries.ts';
import { connect } from '../../src/store/connection.ts';
import { RejectedStore } from '../../src/store/rejected-store.ts';
import { LanceSemanticIndexStore } from '../../src/store/semantic-dedup-index.ts';
import { TaskStore } from '../../src/store/task-store.ts';
import { tinyEmbedderDir } from '../helpers/tiny-embedder.ts';
import { tempDir } from '../helpers/tmp.ts';
import { writeYaml } from '../lifecycle/rft-files.ts';

const dir = tempDir('winnow-semantic-pipeline-');
const model = tinyEmbedderDir();
const db = join(dir, 'db');
const registry = taskOperatorRegistry();

const jsonl = (name: string, rows: Array<Record<string, string>>) => {
  writeFileSync(join(dir, name), `${rows.map((r) => JSON.stringify(r)).join('\n')}\n`);
  return name;
};

const pipeline = (name: string, input: string) =>
  writeYaml(join(dir, `${name}.yaml`), {
    name,
    input: { path: input },
    mapping: { taskset: name, id: 'id', prompt: 'q' },
    operators: [
      { op: 'embed', params: { model: { path: model } } },
      { op: 'semantic_dedup', params: { threshold: 0.9, index: { table: 'semantic_index' } } },
    ],
  });

describe('embed → semantic_dedup in a task pipeline (tiny model, LanceDB)', () => {
  it('run 1 dedups within the dataset; run 2 of another dataset is deduplicated against run 1', async () => {
    const a = jsonl('a.jsonl', [
      { id: 'a1', q: 'Tom has 5 apples and buys 3 more apples. How many apples does Tom have?' },
      { id: 'a2', q: 'Tom has 5 apples and buys 3 more apples. How many apples does Tom have now?' },
      { id: 'a3', q: 'A train leaves the city at 9 and arrives at noon. How many hours is the trip?' },
      { id: 'empty', q: '   ' },
      { id: 'huge', q: `The red car costs ${'money '.repeat(200_000)}` },
    ]);
    const r1 = await runTaskPipelineFile(pipeline('set-a', a), { registry, dbDir: db });
    expect([r1.tasksOut, r1.rejected]).toEqual([3, 2]);
    const b = jsonl('b.jsonl', [
      { id: 'b1', q: 'tom has 5 apples and buys 3 more apples how many apples does tom have' },
      { id: 'b2', q: 'Each student in the class reads 4 books a week. How many books in 3 weeks?' },
    ]);
    const r2 = await runTaskPipelineFile(pipeline('set-b', b), { registry, dbDir: db });
    expect([r2.tasksOut, r2.rejected]).toEqual([1, 1]);

    const rejected = await (await RejectedStore.open(db)).read();
    const shown = rejected
      .map((r) => [r.runId === r1.runId ? 'run1' : 'run2', r.step, r.rowId, r.reason])
      .sort();
    // The blank prompt never reaches embed: the mapping step rejects it first.
    expect(shown).toEqual([
      ['run1', 'map', '', "empty prompt (column 'q')"],
      [
        'run1',
        'semantic_dedup',
        'a2',
        'semantic duplicate: cosine similarity 0.9753 ≥ 0.9 with set-a/a1 (kept earlier in this run)',
      ],
      [
        'run2',
        'semantic_dedup',
        'b1',
        `semantic duplicate: cosine similarity 0.9774 ≥ 0.9 with set-a/a1 (in index 'semantic_index', run ${r1.runId})`,
      ],
    ]);
    // The 1 MB prompt was cut to the model's 128 tokens, kept, and the run says so.
    expect(r1.warnings).toContain("embed: 1 text(s) longer than the model's 128 tokens were cut to fit");
    const tasks = await (await TaskStore.open(db)).read();
    expect(tasks.map((t) => t.id).sort()).toEqual(['a1', 'a3', 'b2', 'huge']);
    for (const t of tasks) expect((t.meta.embedding as number[]).length).toBe(32);
    const index = await (await connect(db)).openTable('semantic_index');
    const recorded = (await index.query().select(['id', 'taskset']).toArray()).map(
      (r) => `${r.taskset}/${r.id}`,
    );
    expect(recorded.sort()).toEqual(['set-a/a1', 'set-a/a3', 'set-a/huge', 'set-b/b2']);
  });

  it('embed with table: every embedded task gets a row in a LanceDB vector column, upserted on re-runs', async () => {
    const fresh = join(dir, 'db-table');
    const c = jsonl('c.jsonl', [
      { id: 'c1', q: 'Tom has 5 apples and buys 3 more apples. How many apples does Tom have?' },
      { id: 'c2', q: 'Tom has 5 apples and buys 3 more apples. How many apples does Tom have now?' },
      { id: 'c3', q: 'A farm sells 12 eggs a day. How many eggs in a week?' },
    ]);
    const file = writeYaml(join(dir, 'set-c.yaml'), {
      name: 'set-c',
      input: { path: c },
      mapping: { taskset: 'set-c', id: 'id', prompt: 'q' },
      operators: [
        { op: 'embed', params: { model: { path: model }, table: 'task_embeddings' } },
        { op: 'semantic_dedup', params: { threshold: 0.9 } },
      ],
    });
    const r1 = await runTaskPipelineFile(file, { registry, dbDir: fresh });
    expect([r1.tasksOut, r1.rejected]).toEqual([2, 1]);
    const table = await (await connect(fresh)).openTable('task_embeddings');
    const schema = await table.schema();
    expect(String(schema.fields.find((f) => f.name === 'vector')!.type)).toBe('FixedSizeList[32]<Float32>');
    // Every task embed passed on, c2 included (semantic_dedup dropped it later: see the rejected table).
    const rows = async () =>
      (await table.query().select(['id', 'taskset', 'run_id']).toArray())
        .map((r) => `${r.taskset}/${r.id}`)
        .sort();
    expect(await rows()).toEqual(['set-c/c1', 'set-c/c2', 'set-c/c3']);
    // A re-run replaces its rows instead of adding a second copy.
    const r2 = await runTaskPipelineFile(file, { registry, dbDir: fresh });
    expect(r2.tasksOut).toBe(2);
    expect(await rows()).toEqual(['set-c/c1', 'set-c/c2', 'set-c/c3']);
    const runs = (await table.query().select(['run_id']).toArray()).map((r) => String(r.run_id));
    expect(new Set(runs)).toEqual(new Set([r2.runId]));
  });

  it('embed with table outside a pipeline, or onto a table of another width, is a config error', async () => {
    const { embedOp } = await import('../../src/operators/task/embed.ts');
    expect(() => embedOp.create(embedOp.params.parse({ model: { path: model }, table: 't' }))).toThrow(
      "table: embedding table 't' needs a run with a database (run it in a task pipeline, or leave out table (the vectors stay in meta))",
    );
    // The table written above holds 32-wide vectors: a model of another width is refused before anything is queued.
    const store = new LanceSemanticIndexStore(join(dir, 'db-table'));
    await expect(
      store.record('task_embeddings', 4, [
        { taskset: 's', taskId: 'x', runId: 'r', vector: new Float32Array(4) },
      ]),
    ).rejects.toThrow(
      "params.table: embedding table 'task_embeddings' holds vectors of width 32, the model gives 4 (a table belongs to one embedding model: name another table for this model)",
    );
    expect(await store.landPending()).toBe(0);
  });
});
