import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type RecordBatch, Table, tableToIPC } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { MAX_REJECTED_PAYLOAD } from '../../src/core/rejected.ts';
import { rowsToArrowTable } from '../../src/io/arrow-table.ts';
import { writeParquet } from '../../src/io/parquet-writer.ts';
import { tempDir } from '../helpers/tmp.ts';
import { pipelineYaml, runPipeline, STACK_TRACE } from './pipeline-cli.ts';

/**
 * The hostile-input catalogue of issue #6, each case through the whole path: `winnow run` of a
 * small task pipeline in a child process, then the `tasks`, `rejected` and `runs` tables read back.
 * Every case ends in a clear error (exit 1, the file named, no stack trace) or in recorded
 * rejections (exit 0, a warning, each bad row in `rejected` with its file, row and reason).
 */
const dir = tempDir('winnow-hostile-');
const rows = Array.from({ length: 40 }, (_, i) => ({
  id: `r${i}`,
  question: `What is ${i} + 1?`,
  answer: `#### ${i + 1}`,
}));
const line = (o: unknown) => JSON.stringify(o);
const ids = (tasks: { id: string }[]) => tasks.map((t) => t.id);

describe('hostile input through winnow run', () => {
  it('a truncated Parquet file: exit 1 naming the file and what is wrong, nothing landed, run marked failed', async () => {
    await writeParquet(join(dir, 'whole.parquet'), rows);
    const bytes = readFileSync(join(dir, 'whole.parquet'));
    const file = join(dir, 'cut.parquet');
    writeFileSync(file, bytes.subarray(0, Math.floor(bytes.length / 2)));
    const r = await runPipeline(dir, 'parquet', 'cut.parquet');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`error: ${file}: not a readable Parquet file (truncated or corrupt?)`);
    expect(r.stderr).not.toMatch(STACK_TRACE);
    expect(r.tasks).toEqual([]);
    expect(r.runStatus).toBe('failed');
  });

  it('a truncated Arrow IPC file and a truncated Arrow IPC stream: exit 1 naming the file, nothing landed', async () => {
    const table = rowsToArrowTable(rows);
    const asFile = tableToIPC(table, 'file');
    writeFileSync(join(dir, 'cut.arrow'), asFile.subarray(0, Math.floor(asFile.length / 2)));
    const r = await runPipeline(dir, 'arrow-file', 'cut.arrow');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `error: ${join(dir, 'cut.arrow')}: truncated Arrow IPC file: it starts with ARROW1 but has no footer`,
    );
    expect(r.stderr).not.toMatch(STACK_TRACE);
    expect(r.tasks).toEqual([]);
    expect(r.runStatus).toBe('failed');

    // Two record batches; the stream is cut inside the second one.
    const two = new Table([...table.slice(0, 20).batches, ...table.slice(20).batches] as RecordBatch[]);
    const asStream = tableToIPC(two, 'stream');
    writeFileSync(join(dir, 'cut.arrows'), asStream.subarray(0, asStream.length - 200));
    const s = await runPipeline(dir, 'arrow-stream', 'cut.arrows');
    expect(s.code).toBe(1);
    expect(s.stderr).toMatch(/cut\.arrows:row \d+: cannot read Arrow IPC data \(truncated or corrupt\?\)/);
    expect(s.stderr).not.toMatch(STACK_TRACE);
    expect(s.runStatus).toBe('failed');
  });

  it('invalid UTF-8 bytes: that line is rejected as invalid UTF-8 with its line number, the rest lands', async () => {
    const file = join(dir, 'bad-utf8.jsonl');
    writeFileSync(
      file,
      Buffer.concat([
        Buffer.from(`${line(rows[0])}\n`),
        Buffer.from('{"id":"bad","question":"caf'),
        Buffer.from([0xc3, 0x28, 0xff]), // a broken 2-byte sequence and a byte that never occurs in UTF-8
        Buffer.from('","answer":"#### 1"}\n'),
        Buffer.from(`${line(rows[1])}\n`),
      ]),
    );
    const r = await runPipeline(dir, 'utf8', 'bad-utf8.jsonl');
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('warning: 1 row(s) rejected (1 input error(s))');
    expect(ids(r.tasks)).toEqual(['r0', 'r1']);
    expect(r.rejected.map((x) => [x.step, x.row, x.reason, x.file])).toEqual([
      ['read:jsonl', 2, 'invalid UTF-8', file],
    ]);
  });

  it('Latin-1 text: rows with non-UTF-8 accents are rejected as invalid UTF-8, ASCII rows land', async () => {
    const file = join(dir, 'latin1.csv');
    writeFileSync(
      file,
      Buffer.from(
        'id,question,answer\nc1,Combien coûte un café ?,#### 2\nc2,What is 1 + 1?,#### 2\nc3,Ça fait combien ?,#### 3\n',
        'latin1',
      ),
    );
    // Two of three rows unreadable is over the default output.maxRejectedShare (0.5): allow it here.
    const r = await runPipeline(dir, 'latin1', 'latin1.csv', {
      yaml: pipelineYaml('latin1.csv', ['output: { maxRejectedShare: 1 }']),
    });
    expect(r.code).toBe(0);
    expect(ids(r.tasks)).toEqual(['c2']);
    expect(r.rejected.map((x) => [x.step, x.row, x.reason])).toEqual([
      ['read:csv', 2, 'invalid UTF-8'],
      ['read:csv', 4, 'invalid UTF-8'],
    ]);
    // The payload keeps the row with replacement characters, so the user can find it.
    expect(r.rejected[0]!.payload).toContain('caf\uFFFD');
  });

  it('a byte-order mark: it does not leak into the first column name or the first value (CSV and JSONL)', async () => {
    writeFileSync(
      join(dir, 'bom.csv'),
      '\uFEFFid,question,answer\nb1,What is 1 + 1?,#### 2\nb2,What is 2 + 2?,#### 4\n',
    );
    const csv = await runPipeline(dir, 'bom-csv', 'bom.csv');
    expect(csv.code).toBe(0);
    expect(ids(csv.tasks)).toEqual(['b1', 'b2']);
    expect(csv.rejected).toEqual([]);
    writeFileSync(join(dir, 'bom.jsonl'), `\uFEFF${rows.slice(0, 3).map(line).join('\n')}\n`);
    const jsonl = await runPipeline(dir, 'bom-jsonl', 'bom.jsonl');
    expect(jsonl.code).toBe(0);
    expect(ids(jsonl.tasks)).toEqual(['r0', 'r1', 'r2']);
    expect(jsonl.tasks[0]!.prompt).toBe('What is 0 + 1?');
  });

  it('CRLF line ends: no carriage return reaches ids, prompts or answers; a quoted CRLF inside a field is kept', async () => {
    writeFileSync(
      join(dir, 'crlf.csv'),
      'id,question,answer\r\nx1,What is 1 + 1?,#### 2\r\nx2,"Two\r\nlines?",#### 3\r\n',
    );
    const csv = await runPipeline(dir, 'crlf-csv', 'crlf.csv');
    expect(csv.code).toBe(0);
    expect(csv.tasks.map((t) => [t.id, t.prompt, t.answer])).toEqual([
      ['x1', 'What is 1 + 1?', '2'],
      ['x2', 'Two\r\nlines?', '3'],
    ]);
    writeFileSync(join(dir, 'crlf.jsonl'), `${rows.slice(0, 2).map(line).join('\r\n')}\r\n`);
    const jsonl = await runPipeline(dir, 'crlf-jsonl', 'crlf.jsonl');
    expect(jsonl.code).toBe(0);
    expect(jsonl.tasks.map((t) => [t.id, t.prompt, t.answer])).toEqual([
      ['r0', 'What is 0 + 1?', '1'],
      ['r1', 'What is 1 + 1?', '2'],
    ]);
  });

  it('a 10 MB field: a good row lands whole; a bad 10 MB row is recorded with a bounded payload', async () => {
    const big = 'word '.repeat(2 * 1024 * 1024); // 10 MiB
    writeFileSync(
      join(dir, 'big.jsonl'),
      [
        line(rows[0]),
        line({ id: 'big', question: big, answer: '#### 7' }),
        line({ id: 'bigbad', question: { nested: big }, answer: '#### 1' }),
      ].join('\n'),
    );
    const r = await runPipeline(dir, 'big', 'big.jsonl');
    expect(r.code).toBe(0);
    expect(ids(r.tasks)).toEqual(['big', 'r0']);
    expect(r.tasks[0]!.prompt).toBe(big);
    expect(r.tasks[0]!.answer).toBe('7');
    expect(r.rejected.map((x) => [x.step, x.row, x.reason])).toEqual([
      ['map', 3, "prompt: column 'question' holds an object, expected text"],
    ]);
    expect(r.rejected[0]!.payload.length).toBeLessThan(MAX_REJECTED_PAYLOAD + 100);
  });

  it('deeply nested JSON: the row is rejected for its depth (no stack overflow), its neighbours land', async () => {
    const deep = `{"id":"deep","question":"q","answer":"#### 1","meta":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
    writeFileSync(join(dir, 'deep.jsonl'), [line(rows[0]), deep, line(rows[1])].join('\n'));
    const r = await runPipeline(dir, 'deep', 'deep.jsonl');
    expect(r.code).toBe(0);
    expect(r.stderr).not.toMatch(STACK_TRACE);
    expect(ids(r.tasks)).toEqual(['r0', 'r1']);
    expect(r.rejected.map((x) => [x.step, x.row, x.reason])).toEqual([
      ['read:jsonl', 2, 'JSON nested deeper than 1000 levels (maxDepth)'],
    ]);
  });

  it('wrong types: objects, arrays and nulls where text is expected are rejected saying which column holds what', async () => {
    writeFileSync(
      join(dir, 'types.jsonl'),
      [
        line(rows[0]),
        line({ id: 'obj', question: { t: 'x' }, answer: '#### 1' }),
        line({ id: 'arr', question: ['a'], answer: '#### 1' }),
        line({ id: 'nul', question: null, answer: '#### 1' }),
        line({ id: { x: 1 }, question: 'an object id', answer: '#### 1' }),
        line({ id: 7, question: 'an integer id', answer: '#### 7' }),
        line({ id: 'num', question: 42, answer: '#### 1' }),
        '"just a string"',
      ].join('\n'),
    );
    // Six of eight rows bad is over the default output.maxRejectedShare (0.5): allow it here.
    const r = await runPipeline(dir, 'types', 'types.jsonl', {
      yaml: pipelineYaml('types.jsonl', ['output: { maxRejectedShare: 1 }']),
    });
    expect(r.code).toBe(0);
    // Integers are legal ids; a number is not a prompt unless the mapping says `coerce: string`.
    expect(r.tasks.map((t) => [t.id, t.prompt])).toEqual([
      ['7', 'an integer id'],
      ['r0', 'What is 0 + 1?'],
    ]);
    expect(r.rejected.map((x) => [x.step, x.row])).toEqual([
      ['map', 2],
      ['map', 3],
      ['map', 4],
      ['map', 5],
      ['map', 7],
      ['read:jsonl', 8],
    ]);
    expect(r.rejected[4]!.reason).toBe(
      "prompt: column 'question' holds a number (42), expected text (coerce: string accepts it)",
    );
    expect(r.rejected[0]!.reason).toBe("prompt: column 'question' holds an object, expected text");
    expect(r.rejected[1]!.reason).toBe("prompt: column 'question' holds an array, expected text");
    expect(r.rejected[2]!.reason).toBe("prompt: column 'question' holds null, expected text");
    expect(r.rejected[3]!.reason).toContain("id: column 'id' holds an object");
    expect(r.rejected[5]!.reason).toContain('expected a JSON object');
  });

  it('missing ids: rows without the id column, or with an empty id, are rejected naming the column', async () => {
    writeFileSync(
      join(dir, 'missing-ids.jsonl'),
      [
        line(rows[0]),
        line({ question: 'no id', answer: '#### 1' }),
        line({ id: '', question: 'empty id', answer: '#### 1' }),
        line(rows[1]),
      ].join('\n'),
    );
    const r = await runPipeline(dir, 'missing-ids', 'missing-ids.jsonl');
    expect(r.code).toBe(0);
    expect(ids(r.tasks)).toEqual(['r0', 'r1']);
    expect(r.rejected.map((x) => [x.step, x.row, x.reason])).toEqual([
      ['map', 2, "id: missing column 'id' (the row has: 'question', 'answer')"],
      ['map', 3, `id: column 'id' holds "", expected non-empty text or an integer`],
    ]);
  });

  it('duplicate ids: the first row with an id lands, later ones are rejected naming where the first came from', async () => {
    const file = join(dir, 'dup-ids.jsonl');
    writeFileSync(
      file,
      [
        line(rows[0]),
        line(rows[1]),
        line({ ...rows[0], question: 'same id, other text' }),
        line(rows[0]),
      ].join('\n'),
    );
    const r = await runPipeline(dir, 'dup-ids', 'dup-ids.jsonl');
    expect(r.code).toBe(0);
    expect(r.tasks.map((t) => [t.id, t.prompt])).toEqual([
      ['r0', 'What is 0 + 1?'],
      ['r1', 'What is 1 + 1?'],
    ]);
    expect(r.rejected.map((x) => [x.step, x.row, x.rowId, x.reason])).toEqual([
      ['write', 3, 'r0', `duplicate id r0 (first written from ${file}:1)`],
      ['write', 4, 'r0', `duplicate id r0 (first written from ${file}:1)`],
    ]);
  });

  it('an empty file: the run completes with nothing landed and says the file held no rows', async () => {
    writeFileSync(join(dir, 'empty.jsonl'), '');
    const r = await runPipeline(dir, 'empty', 'empty.jsonl');
    expect(r.code).toBe(0);
    expect(r.tasks).toEqual([]);
    expect(r.rejected).toEqual([]);
    expect(r.stdout).toContain(`${join(dir, 'empty.jsonl')}: no rows read`);
    expect(r.runStatus).toBe('completed');
  });

  it('a directory where a file is expected: exit 2 naming input.path before anything is written', async () => {
    mkdirSync(join(dir, 'folder.jsonl'));
    const r = await runPipeline(dir, 'folder', 'folder.jsonl');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `error: ${r.yaml}: input.path: ${join(dir, 'folder.jsonl')} is a directory, expected a dataset file`,
    );
    expect(r.stderr).not.toMatch(STACK_TRACE);
    // Checked before the run starts: no run is recorded, nothing lands.
    expect(r.runStatus).toBeUndefined();
    expect(r.tasks).toEqual([]);
    // A missing file is reported the same way, with a hint.
    const m = await runPipeline(dir, 'missing', 'nowhere.jsonl');
    expect(m.code).toBe(2);
    expect(m.stderr).toContain(`error: ${m.yaml}: input.path: no such file: ${join(dir, 'nowhere.jsonl')} (`);
    expect(m.runStatus).toBeUndefined();
  });

  it('a CSV with ragged rows: short and long rows are rejected with their field counts, full rows land', async () => {
    writeFileSync(
      join(dir, 'ragged.csv'),
      'id,question,answer\nk1,What is 1 + 1?,#### 2\nk2\nk3,What is 2 + 2?,#### 4,extra\nk4,What is 3 + 3?,#### 6\n',
    );
    const r = await runPipeline(dir, 'ragged', 'ragged.csv');
    expect(r.code).toBe(0);
    expect(ids(r.tasks)).toEqual(['k1', 'k4']);
    expect(r.rejected.map((x) => [x.step, x.row, x.reason])).toEqual([
      ['read:csv', 3, 'row has 1 fields, header has 3'],
      ['read:csv', 4, 'row has 4 fields, header has 3'],
    ]);
    expect(r.stderr).toContain('warning: 2 row(s) rejected (2 input error(s))');
  });
});
