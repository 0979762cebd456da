import { basename } from 'node:path';
import { DataError } from '../core/errors.ts';
import { readArrowFile } from './arrow-reader.ts';
import { checkDatasetFile, DATASET_EXTENSIONS, fileBytes, fileHead } from './byte-source.ts';
import { parseCsv } from './csv-reader.ts';
import { parseJsonArray } from './json-reader.ts';
import { parseJsonl } from './jsonl-reader.ts';
import { readParquetFile } from './parquet-reader.ts';
import type { DatasetFormat, RawBatch } from './raw-record.ts';
import { parseReadOptions, type ReadOptions } from './read-options.ts';

const BY_EXTENSION: Record<string, DatasetFormat> = {
  jsonl: 'jsonl',
  ndjson: 'jsonl',
  json: 'json',
  csv: 'csv',
  tsv: 'csv',
  parquet: 'parquet',
  pq: 'parquet',
  arrow: 'arrow',
  feather: 'arrow',
  ipc: 'arrow',
  arrows: 'arrow',
};

/** `data.jsonl.gz` → { ext: 'jsonl', gzip: true }. */
function extensionOf(path: string): { ext: string; gzip: boolean } {
  const parts = basename(path).toLowerCase().split('.');
  let last = parts.length > 1 ? parts.pop()! : '';
  const gzip = last === 'gz';
  if (gzip) last = parts.length > 1 ? parts.pop()! : '';
  return { ext: last, gzip };
}

/** The dataset format a path's extension names (`.gz` looked through). Unknown extensions throw a DataError. */
export function detectFormat(path: string): DatasetFormat {
  const { ext } = extensionOf(path);
  const format = BY_EXTENSION[ext];
  if (format === undefined) {
    throw new DataError({
      file: path,
      message: `cannot tell the dataset format from the extension '${ext ? `.${ext}` : ''}'; expected one of ${DATASET_EXTENSIONS}, or pass format`,
    });
  }
  return format;
}

/**
 * Stream a dataset file as batches of raw records (`batchSize` each, the last one smaller), with
 * the rows that could not be read reported in each batch's `rejected`. The format comes from the
 * extension or `opts.format`; `.gz` text files are gunzipped on the fly. `source.file` is the
 * absolute path. A missing file, a directory or an unreadable columnar file throws a DataError;
 * an empty file yields no batches.
 */
export async function* readDataset(path: string, opts: ReadOptions = {}): AsyncGenerator<RawBatch> {
  const o = parseReadOptions(opts);
  const { file, size } = await checkDatasetFile(path);
  const format = o.format ?? detectFormat(file);
  if (size === 0) return;
  const magic = await fileHead(file, 2);
  const gzip = extensionOf(file).gzip || (magic[0] === 0x1f && magic[1] === 0x8b);
  if (gzip && (format === 'parquet' || format === 'arrow')) {
    throw new DataError({
      file,
      message: `gzip-compressed ${format} files are not supported; decompress it first`,
    });
  }
  const ctx = { file, batchSize: o.batchSize, maxLineBytes: o.maxLineBytes, maxDepth: o.maxDepth };
  switch (format) {
    case 'jsonl':
      yield* parseJsonl(fileBytes(file, gzip), ctx);
      return;
    case 'json':
      yield* parseJsonArray(fileBytes(file, gzip), { ...ctx, jsonPath: o.jsonPath });
      return;
    case 'csv': {
      const tsv = extensionOf(file).ext === 'tsv';
      const delimiter = o.csv.delimiter ?? (tsv ? '\t' : ',');
      yield* parseCsv(fileBytes(file, gzip), { ...ctx, ...o.csv, delimiter });
      return;
    }
    case 'parquet':
      yield* readParquetFile(file, o.batchSize);
      return;
    case 'arrow':
      yield* readArrowFile(file, o.batchSize);
      return;
  }
}
