import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { winnow } from './helpers/cli.ts';
import { tempDir } from './helpers/tmp.ts';

// `bench ingest --input FILE` on a file without an id column: the mapping comes from the file
// (it used to stop at `mapping.id: column 'id' is in no row`), issue 40's pipeline runs on both
// paths, and the anchors are run or skipped with a reason. The shape, not the speed.
const dir = tempDir('winnow-bench-ingest-input-');
const rows = [
  { question: '<p>what is the price of eggs today?</p>', answer: '3' },
  { question: 'ok?', answer: '1' },
  { question: 'the cat the cat the cat the cat', answer: '2' },
  { question: '!!!??? ... ---- *** ab', answer: '4' },
  { question: 'what   is the price of eggs today?', answer: '5' },
  { question: '今天天气很好，我们去学习中文吧', answer: '6' },
];
const file = join(dir, 'qa.jsonl');
writeFileSync(file, `${rows.map((r) => JSON.stringify(r)).join('\n')}\n`);

describe('winnow bench ingest --input (no id column)', () => {
  it('infers the mapping and lands the same rows on the row path and the engine (--anchor measures both)', () => {
    const r = winnow(
      [
        'bench',
        'ingest',
        '--input',
        file,
        '--pipeline',
        'issue40',
        // Both Winnow paths, named (with --runs, --anchor adds no run of its own).
        '--runs',
        'full,full-duckdb',
        '--docs',
        '0',
        '--anchor',
        '--json',
      ],
      { timeoutMs: 240_000 },
    );
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.pipeline).toBe('issue40');
    expect(out.mapping).toEqual({ prompt: 'question', answer: 'answer' });
    const runs = out.runs as Array<{ run: string; rows: number; landed: number }>;
    // Dropped: too short (ok?), repeated 2-grams (the cat…), punctuation (!!!…); three land.
    expect(runs.filter((x) => !x.run.startsWith('python')).map((x) => [x.run, x.rows, x.landed])).toEqual([
      ['issue40 pipeline', 6, 3],
      ['issue40 pipeline, engine: duckdb', 6, 3],
    ]);
    for (const anchor of [out.anchors.python, out.anchors.polars])
      expect('skipped' in anchor ? typeof anchor.skipped : anchor.rows).toEqual(
        'skipped' in anchor ? 'string' : 6,
      );
  }, 300_000);
});
