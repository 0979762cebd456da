// The floor of bench/ingest: what reading the file and writing it to LanceDB costs with no
// mapping, no operators and no bookkeeping. The file is parsed by the pipeline's own reader,
// its columns go into Arrow as they are (strings as Utf8, anything else as JSON text), and
// Arrow tables of the pipeline's default commit size are added to a fresh LanceDB table, one add
// in flight while the next is parsed and built (as the pipeline's writer does). Nothing a pipeline
// does can be cheaper.
import { performance } from 'node:perf_hooks';
import * as arrow from 'apache-arrow';
import type { RawRecord } from '../../src/io/raw-record.ts';
import { readDataset } from '../../src/io/reader.ts';
import { DEFAULT_COMMIT_ROWS } from '../../src/lifecycle/pipeline/task-pipeline-config.ts';
import { connect } from '../../src/store/connection.ts';

const COMMIT_ROWS = DEFAULT_COMMIT_ROWS;

function toArrow(records: readonly RawRecord[], columns: readonly string[]): arrow.Table {
  const vectors: Record<string, arrow.Vector> = {};
  for (const col of columns) {
    const values = records.map((r) => {
      const v = r.fields[col];
      return v === undefined || v === null ? null : typeof v === 'string' ? v : JSON.stringify(v);
    });
    vectors[col] = arrow.vectorFromArray(values, new arrow.Utf8());
  }
  return new arrow.Table(vectors);
}

export interface FloorResult {
  rows: number;
  secs: number;
  cpuSecs: number;
  /** Of `secs`: waiting for LanceDB adds (the rest is parsing and building Arrow). */
  writeWaitSecs: number;
}

export async function measureFloor(file: string, dbDir: string): Promise<FloorResult> {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const conn = await connect(dbDir);
  let table: Awaited<ReturnType<typeof conn.createTable>> | null = null;
  let columns: string[] | null = null;
  let pending: RawRecord[] = [];
  let inFlight: Promise<unknown> = Promise.resolve();
  let rows = 0;
  let waitMs = 0;
  const flush = async () => {
    if (pending.length === 0) return;
    const data = toArrow(pending, columns!);
    pending = [];
    const tw = performance.now();
    await inFlight;
    waitMs += performance.now() - tw;
    if (!table) table = await conn.createTable('floor', data);
    else inFlight = table.add(data);
  };
  for await (const batch of readDataset(file, {})) {
    for (const r of batch.records) {
      columns ??= Object.keys(r.fields);
      pending.push(r);
    }
    rows += batch.records.length + batch.rejected.length;
    if (pending.length >= COMMIT_ROWS) await flush();
  }
  await flush();
  const tw = performance.now();
  await inFlight;
  waitMs += performance.now() - tw;
  const cpu = process.cpuUsage(cpu0);
  return {
    rows,
    secs: (performance.now() - t0) / 1000,
    cpuSecs: (cpu.user + cpu.system) / 1e6,
    writeWaitSecs: waitMs / 1000,
  };
}
