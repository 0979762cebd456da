import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RejectedStore } from '../../src/store/rejected-store.ts';
import { TaskStore } from '../../src/store/task-store.ts';
import { winnow } from '../helpers/cli.ts';
import { tempDir } from '../helpers/tmp.ts';

const dir = tempDir('winnow-cli-');

/** A JSONL file mixing good rows with every kind of bad line the acceptance names. */
function writeMessyFile(path: string): void {
  const good = (i: number) =>
    JSON.stringify({ id: `q${i}`, question: `What is ${i} plus ${i}?`, answer: `#### ${2 * i}` });
  const lines = [
    `\uFEFF${good(1)}`, // 1: BOM on the first line
    good(2), // 2
    '{"id": "bad1", "question": "unterminated', // 3: invalid JSON
    JSON.stringify({ id: 'q4', answer: '#### 1' }), // 4: missing question
    JSON.stringify({ id: 'q5', question: { text: 'What is 5?' }, answer: '#### 5' }), // 5: wrong type (object for text)
    `${JSON.stringify({ id: 'big', question: 'x'.repeat(10 * 1024 * 1024), answer: '#### 1' })}`, // 6: 10 MB line (valid)
    good(7), // 7
    '[1, 2, 3]', // 8: not an object
    `${good(9)}\r`, // 9: CRLF
  ];
  writeFileSync(path, `${lines.join('\n')}\n`);
}

function writePipeline(path: string, input: string): void {
  writeFileSync(
    path,
    [
      'name: messy',
      'input:',
      `  path: ${input}`,
      'mapping:',
      '  taskset: messy',
      '  id: id',
      '  prompt: question',
      '  answer: answer',
      'operators:',
      '  - op: extract_answer',
      '    params: { mode: gsm8k }',
      '',
    ].join('\n'),
  );
}

describe('winnow run on a messy JSONL file', () => {
  const data = join(dir, 'messy.jsonl');
  writeMessyFile(data);
  const pipeline = join(dir, 'messy.yaml');
  writePipeline(pipeline, 'messy.jsonl');

  it('lands every good row, records every bad line with file, line and reason, exits 0 with a warning', async () => {
    const db = join(dir, 'db');
    const r = winnow(['run', pipeline, '--db', db]);
    expect(r.stderr).toContain('warning:');
    expect(r.code).toBe(0);
    const landed = (await (await TaskStore.open(db)).read()).map((t) => t.id).sort();
    expect(landed).toEqual(['big', 'q1', 'q2', 'q7', 'q9']);
    const rejected = (await (await RejectedStore.open(db)).read()).sort((a, b) => a.row - b.row);
    expect(rejected.map((x) => [x.row, x.step])).toEqual([
      [3, 'read:jsonl'],
      [4, 'map'],
      [5, 'map'],
      [8, 'read:jsonl'],
    ]);
    for (const x of rejected) {
      expect(x.file).toBe(data);
      expect(x.reason.length).toBeGreaterThan(5);
    }
    expect(rejected[1]!.reason).toContain('question');
    expect(rejected[3]!.reason).toContain('expected a JSON object');
    expect(r.stdout).toContain('5 tasks passed the operators');
  });

  it('exits non-zero under --strict and lands nothing', async () => {
    const db = join(dir, 'db-strict');
    const r = winnow(['run', pipeline, '--db', db, '--strict']);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('4 input row(s) could not be read or mapped (strict mode)');
    expect(await (await TaskStore.open(db)).count()).toBe(0);
    expect((await (await RejectedStore.open(db)).read()).length).toBe(4);
  });

  it('names the YAML path and the closest operator on a bad config, exit code 2', () => {
    const bad = join(dir, 'bad.yaml');
    writeFileSync(
      bad,
      'name: bad\ninput: { path: messy.jsonl }\nmapping: { taskset: t, prompt: question }\noperators:\n  - op: exact_dedupe\n',
    );
    const r = winnow(['run', bad, '--db', join(dir, 'db-bad')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      "operators[0].op: unknown operator 'exact_dedupe' (did you mean 'exact_dedup'",
    );
    const wrongType = join(dir, 'bad2.yaml');
    writeFileSync(
      wrongType,
      'name: bad\ninput: { path: messy.jsonl, batchSize: -3 }\nmapping: { taskset: t, prompt: question }\n',
    );
    const r2 = winnow(['run', wrongType, '--db', join(dir, 'db-bad')]);
    expect(r2.code).toBe(2);
    expect(r2.stderr).toMatch(/input\.batchSize: Too small/);
  });
});
