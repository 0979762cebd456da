import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, DataQualityError, StrictModeError } from '../../src/core/errors.ts';
import { writeParquet } from '../../src/io/parquet-writer.ts';
import { runTaskPipelineFile } from '../../src/lifecycle/pipeline/task-pipeline.ts';
import { loadTaskSource } from '../../src/lifecycle/pipeline/task-source.ts';
import { TaskSourceSchema } from '../../src/lifecycle/run/rft-config.ts';
import { taskOperatorRegistry } from '../../src/operators/registries.ts';
import { RejectedStore } from '../../src/store/rejected-store.ts';
import { RunTable } from '../../src/store/run-table.ts';
import { TaskStore } from '../../src/store/task-store.ts';
import { winnow } from '../helpers/cli.ts';
import { tempDir } from '../helpers/tmp.ts';
import { treeHashes, writeYaml } from './rft-files.ts';

const dir = tempDir('winnow-quality-');
const registry = taskOperatorRegistry();

const CSV = [
  'id,question,answer,level,topic',
  '1,What is 2+2?,4,1,arithmetic',
  '2,What is 3+3?,6,1,arithmetic',
  '3,What is 4+4?,8,2,arithmetic',
  '4,What is 5+5?,10,2,arithmetic',
  '5,,9,1,arithmetic',
  '6,   ,9,1,arithmetic',
  '7,12345,9,1,arithmetic',
  '8,What is 6+6?,12,3,arithmetic',
  '9,What is 7+7?,14,3,arithmetic',
  '10,What is 8+8?,16,3,arithmetic',
].join('\n');
const csvFile = join(dir, 'qa.csv');
writeFileSync(csvFile, `${CSV}\n`);
const jsonlFile = join(dir, 'qa.jsonl');
writeFileSync(
  jsonlFile,
  `${[
    { uid: 'a', problem: { text: 'Add 1 and 2' }, solution: 3 },
    { uid: 'b', problem: { text: 'Add 2 and 2' }, solution: 4 },
  ]
    .map((r) => JSON.stringify(r))
    .join('\n')}\n`,
);
const parquetFile = join(dir, 'qa.parquet');
await writeParquet(parquetFile, [
  { qid: 'p1', prompt_text: 'Name a prime', gold: '2' },
  { qid: 'p2', prompt_text: 'Name an even number', gold: '4' },
]);

let n = 0;
function pipeline(input: string, mapping: Record<string, unknown>, output: Record<string, unknown> = {}) {
  n++;
  const file = writeYaml(join(dir, `p${n}.yaml`), {
    name: `quality-${n}`,
    input: { path: input },
    mapping: { taskset: 'qa', ...mapping },
    output,
  });
  return { file, db: join(dir, `db${n}`) };
}
async function failure(file: string, db: string, strict = false): Promise<Error> {
  return runTaskPipelineFile(file, { registry, dbDir: db, strict }).then(
    () => {
      throw new Error('expected the run to fail');
    },
    (err: Error) => err,
  );
}

describe('a mapping naming a column the file lacks fails before anything is written', () => {
  const cases = [
    {
      format: 'CSV',
      input: 'qa.csv',
      mapping: { id: 'id', prompt: 'questoin', answer: 'answer' },
      message: `${join(dir, 'p1.yaml')}: mapping.prompt: column 'questoin' is in no row of the first batch of qa.csv (did you mean 'question'?; the file has: id, question, answer, level, topic)`,
    },
    {
      format: 'Parquet',
      input: 'qa.parquet',
      mapping: { id: 'qid', prompt: { template: 'Task: {promt_text}' }, answer: 'gold' },
      message: `${join(dir, 'p2.yaml')}: mapping.prompt.template: template field 'promt_text' is in no row of the first batch of qa.parquet (did you mean 'prompt_text'?; the file has: qid, prompt_text, gold)`,
    },
    {
      format: 'JSONL',
      input: 'qa.jsonl',
      mapping: { id: 'uid', prompt: 'problem.txt', answer: 'soluton' },
      message: `${join(dir, 'p3.yaml')}: mapping.prompt: column 'problem.txt' is in no row of the first batch of qa.jsonl; also missing: answer 'soluton' (did you mean 'problem.text'?; the file has: uid, problem, solution)`,
    },
  ];
  for (const c of cases) {
    it(`${c.format}: ConfigError naming key, column and nearest columns; the database is untouched`, async () => {
      const { file, db } = pipeline(c.input, c.mapping);
      const before = treeHashes(dir);
      const err = await failure(file, db);
      expect(err).toBeInstanceOf(ConfigError);
      expect(err.message).toBe(c.message);
      expect(existsSync(db)).toBe(false);
      expect(treeHashes(dir)).toEqual(before);
    });
  }

  it('the CLI exits 2 with that one line and no stack', () => {
    const { file, db } = pipeline('qa.csv', { prompt: 'questoin' });
    const r = winnow(['run', file, '--db', db]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(
      `error: ${file}: mapping.prompt: column 'questoin' is in no row of the first batch of qa.csv (did you mean 'question'?; the file has: id, question, answer, level, topic)`,
    );
    expect(existsSync(db)).toBe(false);
  });
});

describe('an RFT task source read from a file', () => {
  it('checks its mapping against the first batch too, naming the config path', async () => {
    const source = TaskSourceSchema.parse({ path: 'qa.csv', mapping: { taskset: 'qa', prompt: 'questoin' } });
    const err = await loadTaskSource(source, {
      baseDir: dir,
      dbDir: join(dir, 'rft-db'),
      step: 'tasks',
      file: '/p/rft.yaml',
    }).then(
      () => new Error('expected a ConfigError'),
      (e: Error) => e,
    );
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.message).toBe(
      "/p/rft.yaml: tasks.mapping.prompt: column 'questoin' is in no row of the first batch of qa.csv (did you mean 'question'?; the file has: id, question, answer, level, topic)",
    );
    const ok = await loadTaskSource(
      TaskSourceSchema.parse({ path: 'qa.csv', mapping: { taskset: 'qa', prompt: 'question' } }),
      { baseDir: dir, dbDir: join(dir, 'rft-db'), step: 'tasks' },
    );
    expect([ok.tasks.length, ok.rejected.map((r) => r.reason)]).toEqual([
      7,
      [
        "empty prompt (column 'question')",
        "empty prompt (column 'question')",
        "prompt: column 'question' holds a number (12345), expected text (coerce: string accepts it)",
      ],
    ]);
  });
});

describe('bad rows: exact reasons in rejected, grouped beside them in the step table', () => {
  it('empty and whitespace prompts and an integer question are rejected; the rest land', async () => {
    const { file, db } = pipeline('qa.csv', { id: 'id', prompt: 'question', answer: 'answer' });
    const report = await runTaskPipelineFile(file, { registry, dbDir: db });
    expect([report.rowsRead, report.inputErrors, report.tasksOut, report.rejected]).toEqual([10, 3, 7, 3]);
    expect(report.steps.find((s) => s.step === 'map')!.reasons).toEqual({
      "empty prompt (column 'question')": 2,
      "prompt: column 'question' holds a number (#), expected text (coerce: string accepts it)": 1,
    });
    const rejected = (await (await RejectedStore.open(db)).read({ runId: report.runId })).sort(
      (a, b) => a.row - b.row,
    );
    expect(rejected.map((r) => [r.step, r.row, r.reason])).toEqual([
      ['map', 6, "empty prompt (column 'question')"],
      ['map', 7, "empty prompt (column 'question')"],
      [
        'map',
        8,
        "prompt: column 'question' holds a number (12345), expected text (coerce: string accepts it)",
      ],
    ]);
    const ids = (await (await TaskStore.open(db)).read()).map((t) => t.id).sort();
    expect(ids).toEqual(['1', '10', '2', '3', '4', '8', '9']);
  });

  it('coerce: string lands the integer question as text', async () => {
    const { file, db } = pipeline('qa.csv', {
      id: 'id',
      prompt: { column: 'question', coerce: 'string' },
      answer: 'answer',
    });
    const report = await runTaskPipelineFile(file, { registry, dbDir: db });
    expect([report.tasksOut, report.inputErrors]).toEqual([8, 2]);
    const t7 = (await (await TaskStore.open(db)).read()).find((t) => t.id === '7');
    expect(t7?.prompt).toBe('12345');
  });

  it('rows missing a column later in the file keep the full reason in rejected', async () => {
    const sparse = join(dir, 'sparse.jsonl');
    writeFileSync(
      sparse,
      `${[
        { question: 'Q1', answer: '1' },
        { question: 'Q2', answer: '2' },
        { questoin: 'Q3', answer: '3' },
      ]
        .map((r) => JSON.stringify(r))
        .join('\n')}\n`,
    );
    const { file, db } = pipeline('sparse.jsonl', { prompt: 'question', answer: 'answer' });
    const report = await runTaskPipelineFile(file, { registry, dbDir: db });
    expect(report.tasksOut).toBe(2);
    const [r] = await (await RejectedStore.open(db)).read({ runId: report.runId });
    expect(r!.reason).toBe("prompt: missing column 'question' (the row has: 'questoin', 'answer')");
    expect(report.steps.find((s) => s.step === 'map')!.reasons).toEqual({
      "prompt: missing column 'question' (the row has: …)": 1,
    });
  });
});

describe('too many rejected rows fail the run (exit 3) and land nothing', () => {
  const allBad = join(dir, 'all-bad.csv');
  writeFileSync(allBad, 'question,answer\n,1\n  ,2\n12345,3\n');

  it('a run that rejects every row: DataQualityError with counts, top reasons and the inspect hint', async () => {
    const { file, db } = pipeline('all-bad.csv', { prompt: 'question', answer: 'answer' });
    const err = await failure(file, db);
    expect(err).toBeInstanceOf(DataQualityError);
    expect(err).toBeInstanceOf(StrictModeError);
    const [run] = await (await RunTable.open(db)).list();
    expect(run!.status).toBe('failed');
    expect(err.message).toBe(
      `every row was rejected: 0 of 3 rows read became tasks (top reasons: map: empty prompt (column 'question') ×2; map: prompt: column 'question' holds a number (#), expected text (coerce: string accepts it) ×1); nothing was landed; see: winnow inspect --db ${db} --table rejected --run ${run!.runId}`,
    );
    expect(await (await TaskStore.open(db)).count()).toBe(0);
    expect((await (await RejectedStore.open(db)).read()).length).toBe(3);
  });

  it('the CLI exits 3 with that one line', async () => {
    const { file, db } = pipeline('all-bad.csv', { prompt: 'question', answer: 'answer' });
    const r = winnow(['run', file, '--db', db]);
    expect(r.code).toBe(3);
    const lines = r.stderr.trim().split('\n');
    expect(lines.at(-1)).toMatch(
      /^error: every row was rejected: 0 of 3 rows read became tasks \(top reasons: .*\); nothing was landed; see: winnow inspect --db .* --table rejected --run \S+$/,
    );
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  // qa.csv: 3 of 10 rows (30%) cannot be mapped.
  it('a share just over output.maxRejectedShare fails; the tasks that passed are not landed', async () => {
    const { file, db } = pipeline(
      'qa.csv',
      { id: 'id', prompt: 'question', answer: 'answer' },
      { maxRejectedShare: 0.29 },
    );
    const err = await failure(file, db);
    expect(err).toBeInstanceOf(DataQualityError);
    expect(err.message).toMatch(
      /^3 of 10 rows read \(30%\) could not be read or mapped, more than output\.maxRejectedShare 0\.29 allows \(top reasons: map: empty prompt \(column 'question'\) ×2; map: prompt: column 'question' holds a number \(#\), expected text \(coerce: string accepts it\) ×1\); nothing was landed; see: winnow inspect --db .* --table rejected --run \S+$/,
    );
    expect(await (await TaskStore.open(db)).count()).toBe(0);
    expect((await (await RejectedStore.open(db)).read()).length).toBe(3);
  });

  it('a share exactly at the limit passes and lands the good rows', async () => {
    const { file, db } = pipeline(
      'qa.csv',
      { id: 'id', prompt: 'question', answer: 'answer' },
      { maxRejectedShare: 0.3 },
    );
    const report = await runTaskPipelineFile(file, { registry, dbDir: db });
    expect([report.tasksOut, report.inputErrors]).toEqual([7, 3]);
    expect(await (await TaskStore.open(db)).count()).toBe(7);
  });

  it('a run over the share that already committed is rolled back to the version it started from', async () => {
    const { file, db } = pipeline(
      'qa.csv',
      { id: 'id', prompt: 'question', answer: 'answer' },
      { maxRejectedShare: 0.1, commitRows: 1 },
    );
    const err = await failure(file, db);
    expect(err).toBeInstanceOf(DataQualityError);
    expect(await (await TaskStore.open(db)).count()).toBe(0);
  });

  it('--strict still fails on any bad row', async () => {
    const { file, db } = pipeline('qa.csv', { id: 'id', prompt: 'question', answer: 'answer' });
    const err = await failure(file, db, true);
    expect(err).toBeInstanceOf(StrictModeError);
    expect(err.message).toMatch(
      /^3 input row\(s\) could not be read or mapped \(strict mode\): nothing was landed/,
    );
  });
});
