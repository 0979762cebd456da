import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import * as arrow from 'apache-arrow';
import fc from 'fast-check';
import { Table as WasmTable } from 'parquet-wasm';
import { describe, expect, it } from 'vitest';
import { boolBitmapFixInstalled, tableToIpcFile, tableToIpcStream } from '../../src/io/arrow-ipc.ts';
// Opening LanceDB connections installs the fix on the CommonJS build (LanceDB's writer): loaded
// here as any code that writes to LanceDB loads it.
import '../../src/store/connection.ts';
import { REPO_ROOT } from '../helpers/cli.ts';
import { missingPython, runPython } from '../helpers/python.ts';
import { tempDir } from '../helpers/tmp.ts';

/**
 * Our IPC writer (src/io/arrow-ipc.ts) against readers outside apache-arrow: arrow-rs (parquet-wasm,
 * in-process) and pyarrow. apache-arrow 18 alone writes an all-null Bool array without its values
 * bitmap, which both refuse; the writer must fix that for tables of either apache-arrow build (ours
 * is ESM, LanceDB hands back CommonJS-build tables).
 */

type Build = typeof arrow;
const cjsArrow = createRequire(import.meta.url)('apache-arrow') as Build;
const BUILDS: [string, Build][] = [
  ['ESM', arrow],
  ['CommonJS', cjsArrow],
];

type Flag = boolean | null;

/** A table `id: int32, flag: bool?` with one record batch per entry of `batches`, in `build`'s classes. */
function flagTable(build: Build, batches: readonly Flag[][]): arrow.Table {
  const schema = new build.Schema([
    new build.Field('id', new build.Int32(), false),
    new build.Field('flag', new build.Bool(), true),
  ]);
  let next = 0;
  const records = batches.map((flags) => {
    const ids = build.vectorFromArray(
      flags.map(() => next++),
      new build.Int32(),
    );
    const data = build.makeData({
      type: new build.Struct(schema.fields),
      length: flags.length,
      nullCount: 0,
      children: [ids.data[0]!, build.vectorFromArray(flags, new build.Bool()).data[0]!],
    });
    return new build.RecordBatch(schema, data);
  });
  return new build.Table(schema, records);
}

/** The stream as arrow-rs reads it (parquet-wasm's IPC reader), back as plain values. */
function throughArrowRs(stream: Uint8Array): { id: number[]; flag: Flag[] } {
  const back = arrow.tableFromIPC(WasmTable.fromIPCStream(stream).intoIPCStream());
  return {
    id: [...back.getChild('id')!].map(Number),
    flag: [...back.getChild('flag')!] as Flag[],
  };
}

const ALL_NULL_1024: Flag[] = new Array(1024).fill(null);
const MIXED: Flag[] = [true, null, false, true];

describe('arrow-ipc writer', () => {
  it('is installed on the assemblers of both apache-arrow builds once the LanceDB connection module is loaded', () => {
    expect(boolBitmapFixInstalled()).toBe(true);
  });

  it.each(BUILDS)(
    'an all-null boolean batch beside others reads back exactly through arrow-rs (%s build)',
    (_, build) => {
      // The shape `winnow export` failed on: one batch of 1,024 nulls (a 128-byte bitmap), one mixed.
      const got = throughArrowRs(tableToIpcStream(flagTable(build, [ALL_NULL_1024, MIXED])));
      expect(got.flag).toEqual([...ALL_NULL_1024, ...MIXED]);
      expect(got.id).toEqual(Array.from({ length: 1028 }, (_, i) => i));
    },
  );

  it('any nullable boolean column shape, in any batches, reads back exactly through arrow-rs', () => {
    const flags = fc.oneof(
      fc.array(fc.constant(null), { minLength: 1, maxLength: 2100 }),
      fc.array(fc.option(fc.boolean(), { nil: null }), { minLength: 1, maxLength: 300 }),
      fc.array(fc.boolean(), { minLength: 1, maxLength: 70 }),
    );
    fc.assert(
      fc.property(
        fc.constantFrom(...BUILDS),
        fc.array(flags, { minLength: 1, maxLength: 4 }),
        ([, build], batches) => {
          const got = throughArrowRs(tableToIpcStream(flagTable(build, batches)));
          expect(got.flag).toEqual(batches.flat());
        },
      ),
      { numRuns: 40, seed: 35 },
    );
  });

  const missing = missingPython(['pyarrow'], 'the pyarrow reads of our Arrow IPC streams and files');
  it.skipIf(missing.length > 0)(
    'pyarrow reads (and fully validates) streams and files of both builds with an all-null boolean',
    () => {
      const dir = tempDir('winnow-arrow-ipc-');
      const files: string[] = [];
      for (const [name, build] of BUILDS) {
        const table = flagTable(build, [MIXED, ALL_NULL_1024, [null]]);
        const stream = join(dir, `${name}.arrows`);
        const file = join(dir, `${name}.arrow`);
        writeFileSync(stream, tableToIpcStream(table));
        writeFileSync(file, tableToIpcFile(table));
        files.push(stream, file);
      }
      const py = runPython(join(REPO_ROOT, 'tests/io/python/read_ipc.py'), files);
      if (py.code !== 0) throw new Error(`read_ipc.py failed: ${py.stderr.slice(-2000)}`);
      const seen = JSON.parse(py.stdout.trim().split('\n').pop()!) as Record<string, { flag: Flag[] }>;
      expect(Object.keys(seen)).toEqual(files);
      for (const path of files) expect(seen[path]!.flag).toEqual([...MIXED, ...ALL_NULL_1024, null]);
    },
    120_000,
  );
});
