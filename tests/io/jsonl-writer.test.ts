import { readdir, readFile } from 'node:fs/promises';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeJsonl } from '../../src/io/jsonl-writer.ts';
import { readDataset } from '../../src/io/reader.ts';
import { collect, fieldsOf, tempDir } from './helpers.ts';

let tmp: Awaited<ReturnType<typeof tempDir>>;
beforeAll(async () => {
  tmp = await tempDir();
});
afterAll(() => tmp.cleanup());

describe('writeJsonl', () => {
  it('writes one JSON object per line, BigInts and typed arrays made JSON-safe', async () => {
    const path = tmp.path('nested/dir/out.jsonl');
    const res = await writeJsonl(path, [
      { a: 1, s: 'é\n"' },
      { big: 2n ** 64n, small: 5n, v: Int32Array.from([1, 2]) },
    ]);
    expect(res).toEqual({ file: path, rows: 2 });
    expect(await readFile(path, 'utf8')).toBe(
      '{"a":1,"s":"é\\n\\""}\n{"big":"18446744073709551616","small":5,"v":[1,2]}\n',
    );
  });

  it('streams async batches, gzips .gz paths, and reads back equal', async () => {
    async function* batches() {
      for (let b = 0; b < 3; b++) yield Array.from({ length: 1000 }, (_, i) => ({ i: b * 1000 + i }));
      yield [];
    }
    const path = tmp.path('out.jsonl.gz');
    expect(await writeJsonl(path, batches())).toEqual({ file: path, rows: 3000 });
    const text = gunzipSync(await readFile(path)).toString();
    expect(text.split('\n')).toHaveLength(3001);
    const back = await collect(readDataset(path));
    expect(fieldsOf(back)).toEqual(Array.from({ length: 3000 }, (_, i) => ({ i })));
  });

  it('leaves no file (and no temp file) when the source fails', async () => {
    async function* failing() {
      yield [{ a: 1 }];
      throw new Error('source broke');
    }
    const path = tmp.path('fail/out.jsonl');
    await expect(writeJsonl(path, failing())).rejects.toThrow('source broke');
    expect(await readdir(tmp.path('fail'))).toEqual([]);
  });

  it('refuses things that are not rows', async () => {
    async function* notBatches() {
      yield { a: 1 };
    }
    await expect(writeJsonl(tmp.path('x.jsonl'), notBatches() as never)).rejects.toThrow(
      'expected each item of a row stream to be an array of rows (a batch)',
    );
  });
});
