import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/core/errors.ts';
import { Rng } from '../../src/core/rng.ts';
import type { Task } from '../../src/core/task.ts';
import { semanticDedupOp, semanticDedupOperator } from '../../src/operators/task/semantic-dedup.ts';
import {
  MemorySemanticIndexStore,
  type SemanticIndexStore,
} from '../../src/operators/task/semantic-dedup-index.ts';
import { connect } from '../../src/store/connection.ts';
import { LanceSemanticIndexStore } from '../../src/store/semantic-dedup-index.ts';
import { tempDir } from '../helpers/tmp.ts';

const dir = tempDir('winnow-semantic-');

/** A task carrying a hand-made vector (what embed would have written). */
const t = (id: string, embedding: number[] | undefined, taskset = 's'): Task => ({
  id,
  taskset,
  prompt: `task ${id}`,
  features: {},
  meta: embedding === undefined ? {} : { embedding },
});

async function dedup(
  params: Record<string, unknown>,
  batches: Task[][],
  opts: { store?: SemanticIndexStore; runId?: string } = {},
) {
  const def = opts.store ? semanticDedupOperator({ store: opts.store }) : semanticDedupOp;
  const op = def.create(def.params.parse(params));
  const ctx = { rng: new Rng(1), seed: 1, runId: opts.runId ?? 'run-1', warn: () => {} };
  const kept: string[] = [];
  const dropped: Array<[string, string]> = [];
  const metrics: Record<string, number> = {};
  for (const b of batches) {
    const r = await op.process(b, ctx);
    kept.push(...r.rows.map((x) => x.id));
    dropped.push(...r.dropped.map((d) => [d.row.id, d.reason] as [string, string]));
    for (const [k, v] of Object.entries(r.metrics ?? {})) metrics[k] = (metrics[k] ?? 0) + v;
  }
  return { kept, dropped, metrics };
}

/** Golden: a, its near copy a2 (cos 0.995), b, c (cos 0.949 to a: below 0.95), b's twin in a later batch. */
const SET = [
  [t('a', [1, 0, 0, 0]), t('a2', [1, 0.1, 0, 0]), t('b', [0, 1, 0, 0])],
  [t('c', [1, 0.331, 0, 0]), t('b2', [0, 2, 0, 0]), t('d', [0, 0, 1, 0])],
];
const GOLDEN = {
  kept: ['a', 'b', 'c', 'd'],
  dropped: [
    ['a2', 'semantic duplicate: cosine similarity 0.9950 ≥ 0.95 with s/a (kept earlier in this run)'],
    ['b2', 'semantic duplicate: cosine similarity 1.0000 ≥ 0.95 with s/b (kept earlier in this run)'],
  ],
  metrics: { semantic_duplicates_run: 2, semantic_duplicates_index: 0, missing_embedding: 0, ann_batches: 0 },
};

describe('semantic_dedup', () => {
  it('golden: first seen wins within a batch and across batches; each drop names the kept task and the similarity', async () => {
    expect(await dedup({}, SET)).toEqual(GOLDEN);
  });

  it('the LanceDB store (flat search below annMinRows) gives the same answer as the in-memory one', async () => {
    const store = new LanceSemanticIndexStore(join(dir, 'db-flat'));
    expect(await dedup({}, SET, { store })).toEqual(GOLDEN);
    store.dispose();
  });

  it('the threshold is inclusive and decides alone', async () => {
    // threshold 1: only b2 (the same direction as b, cosine exactly 1) goes.
    const r = await dedup({ threshold: 1 }, SET);
    expect(r.kept).toEqual(['a', 'a2', 'b', 'c', 'd']);
    expect(r.dropped.map(([id]) => id)).toEqual(['b2']);
    const all = await dedup({ threshold: 0.3 }, SET);
    // c is close to a (0.949) and to a2; d is orthogonal to everything kept.
    expect(all.kept).toEqual(['a', 'b', 'd']);
  });

  it('a task without a vector, or with another width, is dropped with the reason', async () => {
    const r = await dedup({}, [[t('a', [1, 0, 0]), t('none', undefined), t('wide', [1, 0, 0, 0])]]);
    expect(r.kept).toEqual(['a']);
    expect(r.dropped).toEqual([
      ['none', 'no embedding at meta.embedding (run embed first)'],
      ['wide', 'embedding has 4 values, earlier tasks 3'],
    ]);
    expect(r.metrics.missing_embedding).toBe(2);
  });

  it('a persisted index (LanceDB): run 2 of another dataset is deduplicated against what run 1 kept', async () => {
    const db = join(dir, 'db-index');
    const s1 = new LanceSemanticIndexStore(db);
    const r1 = await dedup({ index: {} }, SET, { store: s1, runId: 'run-1' });
    expect(r1.kept).toEqual(GOLDEN.kept);
    // Nothing is written until the run's tasks have landed.
    expect(await (await connect(db)).tableNames()).toEqual([]);
    expect(await s1.landPending()).toBe(4);
    const table = await (await connect(db)).openTable('semantic_index');
    expect(await table.countRows()).toBe(4);
    const r2 = await dedup(
      { index: {} },
      [[t('x', [0.05, 1, 0, 0], 'other'), t('y', [0, 0, 0, 1], 'other'), t('y2', [0, 0, 0.1, 1], 'other')]],
      { store: new LanceSemanticIndexStore(db), runId: 'run-2' },
    );
    expect(r2).toEqual({
      kept: ['y'],
      dropped: [
        [
          'x',
          "semantic duplicate: cosine similarity 0.9988 ≥ 0.95 with s/b (in index 'semantic_index', run run-1)",
        ],
        ['y2', 'semantic duplicate: cosine similarity 0.9950 ≥ 0.95 with other/y (kept earlier in this run)'],
      ],
      metrics: {
        semantic_duplicates_run: 1,
        semantic_duplicates_index: 1,
        missing_embedding: 0,
        ann_batches: 0,
      },
    });
    // check: false ignores the index; another table name is a separate index.
    const fresh = await dedup({ index: { check: false, record: false } }, [[t('x', [0.05, 1, 0, 0])]], {
      store: new LanceSemanticIndexStore(db),
    });
    expect(fresh.kept).toEqual(['x']);
  });

  it('an index whose vectors have another width is a one-line config error naming the table', async () => {
    const db = join(dir, 'db-width');
    const s1 = new LanceSemanticIndexStore(db);
    await dedup({ index: { table: 'mini' } }, [[t('a', [1, 0, 0, 0])]], { store: s1 });
    await s1.landPending();
    const err = await dedup({ index: { table: 'mini' } }, [[t('b', [1, 0])]], {
      store: new LanceSemanticIndexStore(db),
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toBe(
      "params.index.table: semantic index table 'mini' holds vectors of width 4, the embeddings have 2 (an index belongs to one embedding model: name another table for this model)",
    );
  });

  it('index without a store (outside a task pipeline) is a config error', () => {
    expect(() => semanticDedupOp.create(semanticDedupOp.params.parse({ index: {} }))).toThrow(
      "index: semantic index 'semantic_index' needs a run with a database (run it in a task pipeline, or leave out index)",
    );
    expect(semanticDedupOp.params.safeParse({ threshold: 0 }).success).toBe(false);
    expect(semanticDedupOp.params.safeParse({ annMinRows: 10 }).success).toBe(false);
  });
});

/** Seeded unit vectors around `clusters` centres: members of a cluster are near-duplicates. */
function clustered(n: number, dim: number, seed: number): Task[] {
  const rng = new Rng(seed);
  const centres = Array.from({ length: n }, () => Array.from({ length: dim }, () => rng.float() * 2 - 1));
  const out: Task[] = [];
  for (let i = 0; i < n; i++) {
    out.push(t(`u${i}`, centres[i]!));
    // Every 5th task gets a slightly perturbed copy later in the stream.
    if (i % 5 === 0)
      out.push(
        t(
          `u${i}-copy`,
          centres[i]!.map((x) => x + (rng.float() - 0.5) * 0.02),
        ),
      );
  }
  return out;
}

describe('semantic_dedup at scale: flat vs ANN (IVF) search', () => {
  const tasks = clustered(700, 16, 7);
  const batches = Array.from({ length: Math.ceil(tasks.length / 100) }, (_, i) =>
    tasks.slice(i * 100, i * 100 + 100),
  );

  it('an IVF index is built once a table reaches annMinRows; on this data it finds every copy the exact search finds', async () => {
    const exact = await dedup({}, batches, { store: new MemorySemanticIndexStore() });
    expect(exact.dropped.length).toBe(140);
    expect(exact.dropped.every(([id]) => id.endsWith('-copy'))).toBe(true);
    const db = join(dir, 'db-ann');
    const store = new LanceSemanticIndexStore(db);
    const ann = await dedup({ annMinRows: 256, index: {} }, batches, { store });
    expect(ann.kept).toEqual(exact.kept);
    expect(ann.dropped.map(([id]) => id)).toEqual(exact.dropped.map(([id]) => id));
    // The scratch table reaches 256 kept vectors after batch 4: batches 5–9 are searched through IVF.
    expect([exact.metrics.ann_batches, ann.metrics.ann_batches]).toEqual([0, 5]);
    expect(await store.landPending()).toBe(700);
    const table = await (await connect(db)).openTable('semantic_index');
    const indices = await table.listIndices();
    expect(indices.map((i) => [i.indexType, i.columns])).toEqual([['IvfFlat', ['vector']]]);
  });
});
