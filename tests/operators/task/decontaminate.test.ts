import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { StrictModeError } from '../../../src/core/errors.ts';
import { runTaskPipelineFile } from '../../../src/lifecycle/pipeline/task-pipeline.ts';
import { taskOperatorRegistry } from '../../../src/operators/registries.ts';
import { decontaminateOp } from '../../../src/operators/task/decontaminate.ts';
import { MemoryDedupIndexStore } from '../../../src/operators/task/dedup-index.ts';
import { LanceDedupIndexStore } from '../../../src/store/dedup-index.ts';
import { RejectedStore } from '../../../src/store/rejected-store.ts';
import { writeYaml } from '../../lifecycle/rft-files.ts';
import { runOp, tmp } from './decontaminate-helpers.ts';
import { ids, reasons, task } from './helpers.ts';

const REFERENCE = [
  {
    question:
      'Natalia sold clips to 48 of her friends in April, and then she sold half as many clips in May. How many clips did Natalia sell altogether in April and May?',
  },
  {
    question:
      'Weng earns $12 an hour for babysitting. Yesterday, she just did 50 minutes of babysitting. How much did she earn?',
  },
  { text: 'a row without the question field' },
  {
    question:
      'Betty is saving money for a new wallet which costs $100. Betty has only half of the money she needs. Her parents decided to give her $15 for that purpose, and her grandparents twice as much as her parents. How much more money does Betty need to buy the wallet?',
  },
];

function referenceFile(dir = tmp()): string {
  const file = join(dir, 'ref.jsonl');
  writeFileSync(file, `${REFERENCE.map((r) => JSON.stringify(r)).join('\n')}\n`);
  return file;
}

const TASKS = [
  // Same normal form as ref row 1 (case, punctuation and spacing differ).
  task(
    't1',
    '  natalia sold clips to 48 of her friends in April and then she sold half as many clips in May!! How many clips did Natalia sell altogether in April and May',
  ),
  // Ref row 4 with its question rewritten: most 8-grams are shared.
  task(
    't2',
    'Betty is saving money for a new wallet which costs $100. Betty has only half of the money she needs. Her parents decided to give her $15 for that purpose, and her grandparents twice as much as her parents. How much more does she still need?',
  ),
  // Ref row 2 with small edits in every sentence: few 8-grams survive, MinHash still sees it.
  task(
    't3',
    'Weng earns $12 an hour for baby-sitting. Yesterday she did 50 minutes of babysitting. How much did she earn?',
  ),
  task('t4', 'A farmer has 3 cows and buys 4 more. How many cows does he have?'),
  task('t5', ''),
];

const GOLDEN = { ngram: { n: 8, threshold: 0.5 }, minhash: { threshold: 0.6 } };

describe('decontaminate: golden', () => {
  it('drops exact, n-gram and MinHash collisions, each naming the reference row, method and score', async () => {
    const file = referenceFile();
    const r = await runOp({ references: [{ file }], ...GOLDEN }, [TASKS]);
    expect(ids(r.rows)).toEqual(['t4', 't5']);
    expect(reasons(r)).toEqual([
      ['t1', 'contaminated: exact match of reference ref.jsonl:1'],
      ['t2', 'contaminated: n-gram overlap 0.90 with reference ref.jsonl:4 (35/39 n-grams shared)'],
      ['t3', 'contaminated: minhash similarity 0.80 with reference ref.jsonl:2'],
    ]);
    expect(r.metrics).toEqual({
      contaminated_exact: 1,
      contaminated_ngram: 1,
      contaminated_minhash: 1,
      empty_texts: 1,
      reference_rows_skipped: 1,
    });
    expect(r.warnings).toEqual(['1 reference rows skipped (missing or empty text field, or unreadable)']);
  });

  it('each method alone: n-gram only misses the light edit at 0.5, MinHash only catches all three', async () => {
    const file = referenceFile();
    const ngramOnly = await runOp(
      { references: [{ file }], exact: false, ngram: { n: 8, threshold: 0.5 }, minhash: false },
      [TASKS],
    );
    expect(reasons(ngramOnly)).toEqual([
      ['t1', 'contaminated: n-gram overlap 1.00 with reference ref.jsonl:1 (24/24 n-grams shared)'],
      ['t2', 'contaminated: n-gram overlap 0.90 with reference ref.jsonl:4 (35/39 n-grams shared)'],
    ]);
    const minhashOnly = await runOp(
      { references: [{ file }], exact: false, ngram: false, minhash: { threshold: 0.6 } },
      [TASKS],
    );
    expect(reasons(minhashOnly)).toEqual([
      ['t1', 'contaminated: minhash similarity 0.80 with reference ref.jsonl:1'],
      ['t2', 'contaminated: minhash similarity 0.84 with reference ref.jsonl:4'],
      ['t3', 'contaminated: minhash similarity 0.80 with reference ref.jsonl:2'],
    ]);
  });

  it('reads CSV references with a field list (joined like the task field `all`)', async () => {
    const dir = tmp();
    const file = join(dir, 'ref.csv');
    writeFileSync(file, 'q,a\nWhat is 2 + 2?,4\nWhat is 3 + 3?,6\n');
    const tasks = [task('a', 'what is 3+3', { answer: '6' }), task('b', 'What is 3 + 3?', { answer: '7' })];
    const r = await runOp(
      { field: 'all', references: [{ file, field: ['q', 'a'] }], ngram: false, minhash: false },
      [tasks],
    );
    expect(reasons(r)).toEqual([['a', 'contaminated: exact match of reference ref.csv:3']]);
    expect(ids(r.rows)).toEqual(['b']);
  });
});

describe('decontaminate: persisted index', () => {
  const params = { index: { name: 'gsm8k-train' }, ngram: false };
  const run1 = [
    task('a1', 'Tom has 5 apples and gives away 2. How many apples does Tom have left now?', {
      taskset: 'set-a',
    }),
    task('a2', 'A train travels 60 miles in 1 hour. How far does it travel in 3 hours at that speed?', {
      taskset: 'set-a',
    }),
  ];
  const run2 = [
    task('b1', 'tom has 5 apples and gives away 2 how many apples does tom have left now', {
      taskset: 'set-b',
    }),
    task('b2', 'A train travels 60 miles in 1 hour. How far does it travel in 3 hours at that same speed?', {
      taskset: 'set-b',
    }),
    task('b3', 'Sara reads 20 pages a day. How many pages does she read in a week?', { taskset: 'set-b' }),
  ];

  it('in LanceDB: run 1 records what it kept, run 2 of another dataset drops its overlaps with run 1', async () => {
    const db = tmp();
    const store1 = new LanceDedupIndexStore(db);
    // Checking an index that does not exist yet reads nothing and creates nothing.
    const first = await runOp(params, [run1], { store: store1, runId: 'run-1' });
    expect(ids(first.rows)).toEqual(['a1', 'a2']);
    expect(first.dropped).toEqual([]);
    expect((await store1.read('gsm8k-train')).map((e) => [e.taskset, e.taskId, e.runId])).toEqual([
      ['set-a', 'a1', 'run-1'],
      ['set-a', 'a2', 'run-1'],
    ]);
    // A fresh store over the same folder, as a second process would open it.
    const store2 = new LanceDedupIndexStore(db);
    const second = await runOp(params, [run2], { store: store2, runId: 'run-2' });
    expect(reasons(second)).toEqual([
      ['b1', 'contaminated: exact match of reference index gsm8k-train: set-a/a1 (run run-1)'],
      ['b2', 'contaminated: minhash similarity 0.89 with reference index gsm8k-train: set-a/a2 (run run-1)'],
    ]);
    expect(ids(second.rows)).toEqual(['b3']);
    expect((await store2.read('gsm8k-train')).map((e) => e.taskId)).toEqual(['a1', 'a2', 'b3']);
    // Another index name is separate.
    expect(await store2.read('other')).toEqual([]);
  });

  it('record: false checks without recording; an index without a store is a ConfigError', async () => {
    const store = new MemoryDedupIndexStore();
    await runOp({ ...params, index: { name: 'x', record: false } }, [run1], { store });
    expect(await store.read('x')).toEqual([]);
    expect(() => decontaminateOp.create(decontaminateOp.params.parse(params))).toThrow(
      "index: dedup index 'gsm8k-train' needs a run with a database (run it in a task pipeline, or leave out index)",
    );
  });
});

describe('decontaminate: hostile input', () => {
  it('empty text is kept and counted; a 1 MB text is checked in bounded time', async () => {
    const file = referenceFile();
    const words = Array.from({ length: 180_000 }, (_, i) => `w${i % 5000}`).join(' ');
    expect(words.length).toBeGreaterThan(1_000_000);
    const big = task('big', words);
    const t0 = performance.now();
    const r = await runOp({ references: [{ file }] }, [[task('empty', ''), task('blank', '   \n '), big]]);
    expect(performance.now() - t0).toBeLessThan(20_000);
    expect(ids(r.rows)).toEqual(['empty', 'blank', 'big']);
    expect(r.metrics.empty_texts).toBe(2);
    // The 1 MB text as a reference row: a task that is a slice of it shares all of its 13-grams.
    const dir = tmp();
    const bigRef = join(dir, 'big.jsonl');
    writeFileSync(bigRef, `${JSON.stringify({ question: words })}\n`);
    const slice = words.split(' ').slice(1000, 1040).join(' ');
    const r2 = await runOp({ references: [{ file: bigRef }], minhash: false }, [[task('slice', slice)]]);
    expect(reasons(r2)).toEqual([
      ['slice', 'contaminated: n-gram overlap 1.00 with reference big.jsonl:1 (28/28 n-grams shared)'],
    ]);
  });

  it('a reference file that does not exist is a ConfigError naming the key, before anything is read or written', () => {
    const dir = tmp();
    const missing = join(dir, 'nope.jsonl');
    const parsed = decontaminateOp.params.parse({
      references: [{ file: referenceFile(dir) }, { file: missing }],
    });
    expect(() => decontaminateOp.create(parsed)).toThrow(
      `params.references[1].file: reference file ${missing} does not exist (check the path; relative paths resolve against the config file's folder)`,
    );
    expect(existsSync(join(dir, 'dedup_index.lance'))).toBe(false);
  });

  it('a reference row without the text field is skipped and counted, not a crash', async () => {
    const dir = tmp();
    const file = join(dir, 'mixed.jsonl');
    writeFileSync(file, '{"question":"What is 2+2?"}\n{"q":"What is 3+3?"}\n{"question":null}\nnot json\n');
    const r = await runOp({ references: [{ file }] }, [
      [task('x', 'What is 3+3?'), task('y', 'what is 2 + 2')],
    ]);
    expect(reasons(r)).toEqual([['y', 'contaminated: exact match of reference mixed.jsonl:1']]);
    expect(r.metrics.reference_rows_skipped).toBe(3);
  });

  it('no reference and no index is a params error', () => {
    expect(decontaminateOp.params.safeParse({}).success).toBe(false);
  });
});

describe('decontaminate in a task pipeline', () => {
  const registry = taskOperatorRegistry();
  const dir = tmp();
  const db = join(dir, 'db');
  referenceFile(dir);
  const jsonl = (name: string, rows: Array<Record<string, string>>) => {
    writeFileSync(join(dir, name), `${rows.map((r) => JSON.stringify(r)).join('\n')}\n`);
    return name;
  };
  const pipeline = (name: string, input: string, references: unknown[]) =>
    writeYaml(join(dir, `${name}.yaml`), {
      name,
      input: { path: input },
      mapping: { taskset: name, id: 'id', prompt: 'q' },
      operators: [{ op: 'decontaminate', params: { references, index: { name: 'shared' }, ngram: false } }],
    });

  it('run 1 lands its clean tasks and records them; run 2 of another dataset is checked against run 1', async () => {
    const a = jsonl('a.jsonl', [
      { id: 'a1', q: REFERENCE[0]!.question! },
      { id: 'a2', q: 'Tom has 5 apples and gives away 2. How many apples does Tom have left now?' },
      { id: 'a3', q: 'Sara reads 20 pages a day. How many pages does she read in a week?' },
    ]);
    // Relative paths resolve against the config file's folder.
    const r1 = await runTaskPipelineFile(pipeline('set-a', a, [{ file: 'ref.jsonl' }]), {
      registry,
      dbDir: db,
    });
    expect([r1.tasksOut, r1.rejected]).toEqual([2, 1]);
    const b = jsonl('b.jsonl', [
      { id: 'b1', q: 'tom has 5 apples and gives away 2 how many apples does tom have left now' },
      { id: 'b2', q: 'A baker makes 12 loaves a day. How many loaves in 5 days?' },
    ]);
    const r2 = await runTaskPipelineFile(pipeline('set-b', b, []), { registry, dbDir: db });
    expect([r2.tasksOut, r2.rejected]).toEqual([1, 1]);
    const rejected = await (await RejectedStore.open(db)).read();
    expect(rejected.map((r) => [r.runId === r1.runId ? 'run1' : 'run2', r.rowId, r.reason]).sort()).toEqual([
      ['run1', 'a1', 'contaminated: exact match of reference ref.jsonl:1'],
      ['run2', 'b1', `contaminated: exact match of reference index shared: set-a/a2 (run ${r1.runId})`],
    ]);
    const index = await new LanceDedupIndexStore(db).read('shared');
    expect(index.map((e) => [e.taskset, e.taskId]).sort()).toEqual([
      ['set-a', 'a2'],
      ['set-a', 'a3'],
      ['set-b', 'b2'],
    ]);
  });

  it('a run that fails after its operators ran (strict mode, an unreadable row) records nothing in the index', async () => {
    const fresh = join(dir, 'db-strict');
    const e = jsonl('e.jsonl', [
      { id: 'e1', q: 'How many legs do 3 spiders have?' },
      { id: 'e2', q: '' },
    ]);
    const file = pipeline('set-e', e, []);
    await expect(runTaskPipelineFile(file, { registry, dbDir: fresh, strict: true })).rejects.toThrow(
      StrictModeError,
    );
    expect(await new LanceDedupIndexStore(fresh).read('shared')).toEqual([]);
    // The same input without strict mode lands e1 and records it.
    const ok = await runTaskPipelineFile(file, { registry, dbDir: fresh });
    expect(ok.tasksOut).toBe(1);
    expect((await new LanceDedupIndexStore(fresh).read('shared')).map((x) => x.taskId)).toEqual(['e1']);
  });

  it('a task table in the database is a reference: drops name the table and the task id', async () => {
    const b = jsonl('b3.jsonl', [
      { id: 'x1', q: 'Tom has 5 apples and gives away 2! How many apples does Tom have left now' },
      { id: 'x2', q: 'A baker makes 12 loaves a day. How many loaves in 5 days?' },
      { id: 'x3', q: 'Name a prime number larger than 10.' },
    ]);
    // After the first test, table `tasks` holds set-a's a2, a3 and set-b's b2.
    const file = writeYaml(join(dir, 'set-x.yaml'), {
      name: 'set-x',
      input: { path: b },
      mapping: { taskset: 'set-x', id: 'id', prompt: 'q' },
      output: { table: 'tasks_x' },
      operators: [{ op: 'decontaminate', params: { references: [{ table: 'tasks' }], minhash: false } }],
    });
    const r = await runTaskPipelineFile(file, { registry, dbDir: db });
    expect([r.tasksOut, r.rejected]).toEqual([1, 2]);
    const rejected = (await (await RejectedStore.open(db)).read({ runId: r.runId })).map((x) => [
      x.rowId,
      x.reason,
    ]);
    expect(rejected.sort()).toEqual([
      ['x1', 'contaminated: exact match of reference table tasks:a2'],
      ['x2', 'contaminated: exact match of reference table tasks:b2'],
    ]);
  });

  it('a missing reference table fails the build with the key named, and nothing is written', async () => {
    const fresh = join(dir, 'db-no-table');
    const c = jsonl('c2.jsonl', [{ id: 'c1', q: 'What is 2+2?' }]);
    const file = writeYaml(join(dir, 'set-d.yaml'), {
      name: 'set-d',
      input: { path: c },
      mapping: { taskset: 'set-d', id: 'id', prompt: 'q' },
      operators: [{ op: 'decontaminate', params: { references: [{ table: 'gsm8k_test' }] } }],
    });
    await expect(runTaskPipelineFile(file, { registry, dbDir: fresh })).rejects.toThrow(
      `params.references[0].table: no table 'gsm8k_test' in the database ${fresh} (winnow runs --db <folder> lists what a database holds)`,
    );
    expect(existsSync(fresh)).toBe(false);
    // Outside a pipeline there is no database to read it from.
    const parsed = decontaminateOp.params.parse({ references: [{ table: 'tasks' }] });
    expect(() => decontaminateOp.create(parsed)).toThrow(
      "params.references[0].table: reading table 'tasks' needs a run with a database (run it in a task pipeline, or export the table to a file)",
    );
  });

  it('a missing reference file fails the build with the key named, and nothing is written', async () => {
    const fresh = join(dir, 'db-untouched');
    const c = jsonl('c.jsonl', [{ id: 'c1', q: 'What is 2+2?' }]);
    const file = pipeline('set-c', c, [{ file: 'missing.jsonl' }]);
    await expect(runTaskPipelineFile(file, { registry, dbDir: fresh })).rejects.toThrow(
      `params.references[0].file: reference file ${join(dir, 'missing.jsonl')} does not exist (check the path; relative paths resolve against the config file's folder)`,
    );
    expect(existsSync(fresh)).toBe(false);
  });
});
