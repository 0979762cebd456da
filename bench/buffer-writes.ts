// bench/buffer, part 1: writes of the same experiences through ExperienceBuffer.write at several
// call sizes (and many calls in flight) against raw LanceDB `table.add` of the rows pre-encoded.
// What each row measures (every ratio is to the first row, measured in the same run):
// - raw `table.add`, 1 call: the floor. Arrow built beforehand (encoding not timed), the table's
//   own schema, no stable row ids, one commit; timed: LanceDB's JS side (schema read-back, Arrow IPC
//   serialization) and its native append.
// - raw `table.add`, 2,048 / 256 per call: the same rows in that many commits (what any writer that
//   commits each call pays at best).
// - `write`: check + encode + number + commit + index, each call awaited before the next (durable
//   when it returns); the buffer's table has stable row ids; upkeep (compaction every 20 commits)
//   included.
// - `writeBehind`, one caller: each call awaited until queued; the clock stops at `durable()`.
// - `write`, 16 calls in flight: 16 concurrent callers of 256 rows each (group commit).
import { performance } from 'node:perf_hooks';
import { connect } from '../src/buffer/connection.ts';
import { ExperienceBuffer } from '../src/buffer/experience-buffer.ts';
import { encodeExperiences } from '../src/buffer/experience-table.ts';
import { batch } from './buffer-data.ts';

export async function writeBench(dir: string, rows: number, seed: number) {
  const data = batch(0, rows, seed);
  const conn = await connect(dir);
  // Raw floor: one `add` of the rows already encoded as Arrow.
  const encodeStart = performance.now();
  const arrowTable = encodeExperiences(
    data.map((exp, i) => ({
      exp,
      seq: i,
      useCount: 0,
      priority: 0,
      lastUsedStep: -1,
      lastUsedAt: 0,
      consumed: false,
    })),
  );
  const encodeMs = performance.now() - encodeStart;
  const raw = await conn.createEmptyTable('raw_write', arrowTable.schema);
  const rawStart = performance.now();
  await raw.add(arrowTable);
  const rawMs = performance.now() - rawStart;
  const rawRate = rows / (rawMs / 1000);
  // Raw floor for explorer-step sized commits: 256-row adds, pre-encoded.
  const small = [];
  for (let i = 0; i < rows; i += 256) small.push(arrowTable.slice(i, Math.min(rows, i + 256)));
  const raw2048 = await conn.createEmptyTable('raw_write_2048', arrowTable.schema);
  const raw2048Start = performance.now();
  for (let i = 0; i < rows; i += 2048) await raw2048.add(arrowTable.slice(i, Math.min(rows, i + 2048)));
  const raw2048Secs = (performance.now() - raw2048Start) / 1000;
  const raw256 = await conn.createEmptyTable('raw_write_256', arrowTable.schema);
  const raw256Start = performance.now();
  for (const t of small) await raw256.add(t);
  const raw256Secs = (performance.now() - raw256Start) / 1000;
  const out: unknown[][] = [
    ['raw LanceDB table.add (pre-encoded Arrow, 1 call)', rows, 1, rawMs / 1000, Math.round(rawRate), 1],
    [
      'raw LanceDB table.add (pre-encoded, 2,048 per call)',
      rows,
      Math.ceil(rows / 2048),
      raw2048Secs,
      Math.round(rows / raw2048Secs),
      rows / raw2048Secs / rawRate,
    ],
    [
      'raw LanceDB table.add (pre-encoded, 256 per call)',
      rows,
      small.length,
      raw256Secs,
      Math.round(rows / raw256Secs),
      rows / raw256Secs / rawRate,
    ],
  ];
  for (const size of [rows, 2048, 256]) {
    const buf = await ExperienceBuffer.open(dir, { table: `write_${size}`, sampler: { type: 'fifo' } });
    const t = performance.now();
    for (let i = 0; i < rows; i += size) await buf.write(data.slice(i, i + size));
    const secs = (performance.now() - t) / 1000;
    await buf.close();
    const calls = Math.ceil(rows / size);
    out.push([
      `ExperienceBuffer.write, ${size.toLocaleString('en-US')} per call`,
      rows,
      calls,
      secs,
      Math.round(rows / secs),
      rows / secs / rawRate,
    ]);
  }
  // Opt-in write-behind, one caller: each call resolves once queued, so calls made while a commit is
  // in flight coalesce into the next commit; the clock stops when every row is durable.
  for (const size of [2048, 256]) {
    const buf = await ExperienceBuffer.open(dir, { table: `behind_${size}`, sampler: { type: 'fifo' } });
    const before = await buf.version();
    const t = performance.now();
    for (let i = 0; i < rows; i += size) await buf.writeBehind(data.slice(i, i + size));
    await buf.durable();
    const secs = (performance.now() - t) / 1000;
    const commits = (await buf.version()) - before;
    await buf.close();
    out.push([
      `ExperienceBuffer.writeBehind, ${size.toLocaleString('en-US')} per call, one caller, until durable`,
      rows,
      commits,
      secs,
      Math.round(rows / secs),
      rows / secs / rawRate,
    ]);
  }
  // Many explorer calls at once (one per task group in flight): group commit coalesces them.
  for (const inFlight of [16]) {
    const buf = await ExperienceBuffer.open(dir, {
      table: `write_256x${inFlight}`,
      sampler: { type: 'fifo' },
    });
    const before = await buf.version();
    let next = 0;
    const t = performance.now();
    await Promise.all(
      Array.from({ length: inFlight }, async () => {
        for (let i = next; i < rows; i = next) {
          next += 256;
          await buf.write(data.slice(i, i + 256));
        }
      }),
    );
    const secs = (performance.now() - t) / 1000;
    const commits = (await buf.version()) - before;
    await buf.close();
    out.push([
      `ExperienceBuffer.write, 256 per call, ${inFlight} calls in flight`,
      rows,
      commits,
      secs,
      Math.round(rows / secs),
      rows / secs / rawRate,
    ]);
  }
  return { table: out, encodeMs };
}
