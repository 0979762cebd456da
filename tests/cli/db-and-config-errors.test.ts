import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { winnow } from '../helpers/cli.ts';
import { tempDir } from '../helpers/tmp.ts';

/**
 * Issue 35 item 8: first-day mistakes answer with one line naming the file and a next step — never
 * a Rust debug structure or "expected object, got object (write a object here)".
 */
const dir = tempDir('winnow-first-errors-');
const data = join(dir, 'data.jsonl');
writeFileSync(data, '{"id": "a", "q": "What is 1 + 1?", "a": "#### 2"}\n');
const pipeline = join(dir, 'pipeline.yaml');
writeFileSync(
  pipeline,
  'name: first\ninput: { path: data.jsonl }\nmapping: { taskset: t, id: id, prompt: q, answer: a }\n',
);

describe('--db and config mistakes through the CLI', () => {
  it('--db naming a regular file: one line, the path is a file and --db needs a folder (exit 2)', () => {
    const file = join(dir, 'not-a-db.txt');
    writeFileSync(file, 'hello');
    const r = winnow(['run', pipeline, '--db', file, '--quiet']);
    expect(r.stderr).toBe(
      `error: ${file}: is a file, not a folder; a database (--db, or the config's db) is a folder of tables (pass a folder path, e.g. --db ./.winnow/db; a missing folder is created)\n`,
    );
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
  });

  it('--db below a regular file names the file in the way, and writes nothing', () => {
    const file = join(dir, 'in-the-way');
    writeFileSync(file, '');
    const db = join(file, 'sub', 'db');
    const r = winnow(['run', pipeline, '--db', db, '--quiet']);
    expect(r.stderr).toBe(
      `error: ${db}: cannot be made: ${file} is a file; a database (--db, or the config's db) is a folder of tables (pass a folder path, e.g. --db ./.winnow/db; a missing folder is created)\n`,
    );
    expect(r.code).toBe(2);
  });

  it('an empty config file says it is empty and which keys a pipeline needs (exit 2)', () => {
    const empty = join(dir, 'empty.yaml');
    writeFileSync(empty, '\n# nothing yet\n');
    const before = readdirSync(dir).sort();
    const r = winnow(['run', empty, '--quiet']);
    expect(r.stderr).toBe(
      `error: ${empty}: the file is empty; it needs at least the keys name, input, mapping (see \`winnow schema\`)\n`,
    );
    expect(r.code).toBe(2);
    expect(readdirSync(dir).sort()).toEqual(before);
  });

  it('a wrong type reads with articles: "expected an object, got a number (write an object here)"', () => {
    const bad = join(dir, 'bad-type.yaml');
    writeFileSync(bad, 'name: x\ninput: 3\nmapping: { taskset: t, id: id, prompt: q }\n');
    const r = winnow(['run', bad, '--quiet']);
    expect(r.stderr).toBe(`error: ${bad}: input: expected an object, got a number (write an object here)\n`);
    expect(r.code).toBe(2);
  });
});
