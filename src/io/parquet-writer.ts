import { open, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { type Schema, Table } from 'apache-arrow';
import {
  Compression,
  transformParquetStream,
  type RecordBatch as WasmRecordBatch,
  Table as WasmTable,
  WriterPropertiesBuilder,
  writeParquet as wasmWriteParquet,
} from 'parquet-wasm';
import { z } from 'zod';
import { writeAtomically } from '../core/atomic-file.ts';
import { ConfigError, DataError, errorMessage } from '../core/errors.ts';
import { tableToIpcStream } from './arrow-ipc.ts';
import { rowsToArrowTable } from './arrow-table.ts';
import { type RowSource, rowBatches } from './jsonl-writer.ts';

const CODECS = {
  zstd: Compression.ZSTD,
  snappy: Compression.SNAPPY,
  gzip: Compression.GZIP,
  brotli: Compression.BROTLI,
  lz4: Compression.LZ4_RAW,
  none: Compression.UNCOMPRESSED,
} as const;

export const ParquetWriteOptionsSchema = z
  .object({
    /** Codec for every column (default zstd; all listed codecs are in parquet-wasm's build). */
    compression: z.enum(['zstd', 'snappy', 'gzip', 'brotli', 'lz4', 'none']).default('zstd'),
    /** Most rows per row group: smaller groups let readers stream in smaller steps. */
    rowGroupSize: z
      .number()
      .int()
      .positive()
      .default(128 * 1024),
  })
  .strict();
export type ParquetWriteOptions = z.input<typeof ParquetWriteOptionsSchema> & {
  /** Arrow schema for plain rows; inferred from the first batch when absent. */
  schema?: Schema;
};

function writerProperties(o: z.output<typeof ParquetWriteOptionsSchema>) {
  return new WriterPropertiesBuilder()
    .setCompression(CODECS[o.compression])
    .setMaxRowGroupSize(o.rowGroupSize)
    .setCreatedBy('winnow')
    .build();
}

/** The table in parquet-wasm's memory (via IPC bytes arrow-rs accepts: arrow-ipc.ts). */
function toWasm(table: Table): WasmTable {
  return WasmTable.fromIPCStream(tableToIpcStream(table));
}

/**
 * Write an Arrow Table, an array of rows, or an (async) iterable of row batches as Parquet via
 * parquet-wasm. Row batches are streamed: each is converted to Arrow (with `schema`, or the schema
 * inferred from the first non-empty batch) and encoded as it arrives. The file appears atomically.
 */
export async function writeParquet(
  path: string,
  data: Table | RowSource<object>,
  opts: ParquetWriteOptions = {},
): Promise<{ file: string; rows: number }> {
  const { schema, ...rest } = opts;
  const parsed = ParquetWriteOptionsSchema.safeParse(rest);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError({ path: ['parquet', ...issue.path.map(String)].join('.'), message: issue.message });
  }
  const o = parsed.data;
  if (data instanceof Table || Array.isArray(data)) {
    const table =
      data instanceof Table
        ? data
        : rowsToArrowTable(data as readonly object[], schema, { file: resolve(path) });
    const file = await writeAtomically(path, async (tmp) => {
      let bytes: Uint8Array;
      try {
        bytes = wasmWriteParquet(toWasm(table), writerProperties(o));
      } catch (err) {
        throw new DataError({ file: path, message: `cannot encode Parquet: ${errorMessage(err)}` });
      }
      await writeFile(tmp, bytes);
    });
    return { file, rows: table.numRows };
  }
  return streamParquet(path, data as RowSource<object>, schema, o);
}

async function streamParquet(
  path: string,
  rows: RowSource<object>,
  schema: Schema | undefined,
  o: z.output<typeof ParquetWriteOptionsSchema>,
): Promise<{ file: string; rows: number }> {
  const batches = rowBatches(rows);
  const first = await firstNonEmpty(batches);
  // With no rows at all the file holds an empty table.
  if (first === undefined) return writeParquet(path, rowsToArrowTable([], schema), o);
  const target = resolve(path);
  const stream = recordBatchStream(target, first, batches, schema);
  const { source } = stream;
  const file = await writeAtomically(path, async (tmp) => {
    const bytes = (await transformParquetStream(source, writerProperties(o))) as ReadableStream<Uint8Array>;
    const fh = await open(tmp, 'w');
    try {
      for await (const chunk of bytes) await fh.write(chunk);
    } catch (err) {
      if (stream.failure !== undefined) throw stream.failure;
      throw new DataError({ file: target, message: `cannot encode Parquet: ${errorMessage(err)}` });
    } finally {
      await fh.close();
    }
    if (stream.failure !== undefined) throw stream.failure;
  });
  return { file, rows: stream.count };
}

/** The first non-empty batch (it decides the schema), or undefined when there are no rows. */
async function firstNonEmpty(
  batches: AsyncIterator<readonly object[]>,
): Promise<readonly object[] | undefined> {
  for (;;) {
    const next = await batches.next();
    if (next.done) return undefined;
    if (next.value.length > 0) return next.value;
  }
}

interface RecordBatchStream {
  source: ReadableStream<WasmRecordBatch>;
  /** What failed while feeding the encoder: it comes back from the encoder as a bare string. */
  failure: unknown;
  /** Rows fed so far. */
  count: number;
}

/** The rows as a stream of wasm record batches for the encoder: `first`, then the rest of `batches`. */
function recordBatchStream(
  target: string,
  first: readonly object[],
  batches: AsyncIterator<readonly object[]>,
  schema: Schema | undefined,
): RecordBatchStream {
  let batchSchema = schema;
  let firstRow = 0;
  const out: RecordBatchStream = { source: new ReadableStream(), failure: undefined, count: 0 };
  const toRecordBatches = (batch: readonly object[]): WasmRecordBatch[] => {
    const table = rowsToArrowTable(batch, batchSchema, { file: target, firstRow });
    firstRow += batch.length;
    batchSchema ??= table.schema;
    out.count += batch.length;
    const wasm = toWasm(table);
    try {
      return wasm.recordBatches();
    } finally {
      wasm.free();
    }
  };
  const fail = (controller: ReadableStreamDefaultController<WasmRecordBatch>, err: unknown) => {
    out.failure = err;
    controller.error(err);
  };
  out.source = new ReadableStream<WasmRecordBatch>({
    start(controller) {
      try {
        for (const b of toRecordBatches(first)) controller.enqueue(b);
      } catch (err) {
        fail(controller, err);
      }
    },
    async pull(controller) {
      try {
        for (;;) {
          const next = await batches.next();
          if (next.done) {
            controller.close();
            return;
          }
          if (next.value.length === 0) continue;
          for (const b of toRecordBatches(next.value)) controller.enqueue(b);
          return;
        }
      } catch (err) {
        fail(controller, err);
      }
    },
  });
  return out;
}
