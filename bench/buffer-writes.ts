// bench/buffer, part 1: writes of the same experiences through ExperienceBuffer.write at several
// call sizes (and many calls in flight) against raw LanceDB `table.add` of the rows pre-encoded.
// What each row measures. Each row has two ratios, both to raw adds of the same pre-encoded rows into
// a fresh table timed right before that row: the strict one to a raw ONE-call add of all rows (the
// first row shows their median), and one to raw adds of as many rows per call as the row's own calls
// (what any writer committing each call pays at best; the same as the strict one for one call):
// - raw `table.add`, 1 call: the floor. Arrow built beforehand (encoding not timed), the table's
//   own schema, no stable row ids, one commit; timed: LanceDB's JS side (schema read-back, Arrow IPC
//   serialization) and its native append.
// - raw `table.add`, 2,048 / 256 per call: the same rows in that many commits (what any writer that
//   commits each call pays at best); 2,048 per call with 2 calls in flight: two appends side by side.
// - `write`: check + encode + number + commit + index, each call awaited before the next (durable
//   when it returns); the buffer's table has stable row ids; upkeep (compaction every 20 commits)
//   included. The raw adds compact nothing, so the column "compactions" counts the automatic
//   compactions each buffer run paid for (each rewrites every row of the table so far, in the
//   upkeep process once the table holds 20,000 rows), and the runs marked "automatic compaction off"
//   repeat a run with `compactEvery` beyond its commits: the same write without that cost.
// - `writeBehind`, one caller: each call awaited until queued; the clock stops at `durable()`.
// - `write`, calls in flight: 16 concurrent callers of 256 rows each, or 4 of 2,048 (group commit,
//   two commits side by side).
// Every row also gives its CPU seconds (this process, all threads; the upkeep process's compactions
// not included), the main JS thread's share, and the cores it kept busy (CPU ÷ wall): a write run
// near the machine's core count is bound by CPU, not by waiting for commits.
import { performance } from 'node:perf_hooks';
import { ExperienceBuffer } from '../src/buffer/experience-buffer.ts';
import { encodeExperiences } from '../src/buffer/storage/experience-table.ts';
import { connect } from '../src/store/connection.ts';
import { batch } from './buffer-data.ts';
import { type SpanTimes, timedSpan } from './timed-span.ts';

/** One run: its label, the commits it made, its times and the automatic compactions it paid for. */
interface WriteRun {
  run: string;
  commits: number;
  times: SpanTimes;
  compactions: number;
}

/** Beyond any run's commits: the buffer never compacts on its own. */
const NO_COMPACTION = 1_000_000_000;

/** A run to measure and the rows per call of its calls (null: a raw floor row, no same-size ratio). */
interface Measure {
  per: number | null;
  measure: () => Promise<WriteRun>;
}

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
  let tables = 0;
  /** Seconds of raw `add`s of the pre-encoded rows, `per` rows a call, into a fresh table. */
  const rawAdds = async (per: number, inFlight = 1): Promise<SpanTimes> => {
    const raw = await conn.createEmptyTable(`raw_write_${tables++}`, arrowTable.schema);
    const { times } = await timedSpan(() =>
      inFlightCalls(rows, per, inFlight, (i) =>
        raw.add(per >= rows ? arrowTable : arrowTable.slice(i, i + per)),
      ),
    );
    return times;
  };
  const buffer = async (table: string, compactEvery?: number) => {
    const buf = await ExperienceBuffer.open(dir, {
      table,
      sampler: { type: 'fifo' },
      ...(compactEvery === undefined ? {} : { compactEvery }),
    });
    return { buf, before: await buf.version() };
  };
  /** Automatic upkeep jobs (here only compactions: nothing is acknowledged) finished or running. */
  const jobs = (buf: ExperienceBuffer) => buf.upkeepState.completed + (buf.upkeepState.busy ? 1 : 0);
  const off = (compactEvery?: number) => (compactEvery === NO_COMPACTION ? ', automatic compaction off' : '');
  const runs: Measure[] = [
    {
      per: null,
      measure: async () => ({
        run: 'raw LanceDB table.add (pre-encoded, 2,048 per call)',
        commits: 0,
        times: await rawAdds(2048),
        compactions: 0,
      }),
    },
    {
      per: null,
      measure: async () => ({
        run: 'raw LanceDB table.add (pre-encoded, 2,048 per call, 2 calls in flight)',
        commits: 0,
        times: await rawAdds(2048, 2),
        compactions: 0,
      }),
    },
    {
      per: null,
      measure: async () => ({
        run: 'raw LanceDB table.add (pre-encoded, 256 per call)',
        commits: 0,
        times: await rawAdds(256),
        compactions: 0,
      }),
    },
  ];
  for (const [size, compactEvery] of [[rows], [2048], [2048, NO_COMPACTION], [256]])
    runs.push({
      per: size!,
      measure: async () => {
        const { buf, before } = await buffer(`write_${size}${compactEvery ? '_nc' : ''}`, compactEvery);
        const { times } = await timedSpan(async () => {
          for (let i = 0; i < rows; i += size!) await buf.write(data.slice(i, i + size!));
        });
        const compactions = jobs(buf);
        const commits = (await buf.version()) - before;
        await buf.close();
        const run = `ExperienceBuffer.write, ${size!.toLocaleString('en-US')} per call${off(compactEvery)}`;
        return { run, commits, times, compactions };
      },
    });
  // Opt-in write-behind, one caller: each call resolves once queued, so calls made while a commit is
  // in flight coalesce into the next commit; the clock stops when every row is durable.
  for (const size of [2048, 256])
    runs.push({
      per: size,
      measure: async () => {
        const { buf, before } = await buffer(`behind_${size}`);
        const { times } = await timedSpan(async () => {
          for (let i = 0; i < rows; i += size) await buf.writeBehind(data.slice(i, i + size));
          await buf.durable();
        });
        const compactions = jobs(buf);
        const commits = (await buf.version()) - before;
        await buf.close();
        return {
          run: `ExperienceBuffer.writeBehind, ${size.toLocaleString('en-US')} per call, one caller, until durable`,
          commits,
          times,
          compactions,
        };
      },
    });
  // Many explorer calls at once (one per task group in flight): group commit coalesces them, and
  // two group commits run side by side.
  for (const [per, inFlight, compactEvery] of [
    [256, 16, undefined],
    [256, 16, NO_COMPACTION],
    [2048, 4, undefined],
  ] as const)
    runs.push({
      per,
      measure: async () => {
        const { buf, before } = await buffer(
          `write_${per}x${inFlight}${compactEvery ? '_nc' : ''}`,
          compactEvery,
        );
        const { times } = await timedSpan(() =>
          inFlightCalls(rows, per, inFlight, (i) => buf.write(data.slice(i, i + per))),
        );
        const compactions = jobs(buf);
        const commits = (await buf.version()) - before;
        await buf.close();
        const run = `ExperienceBuffer.write, ${per.toLocaleString('en-US')} per call, ${inFlight} calls in flight${off(compactEvery)}`;
        return { run, commits, times, compactions };
      },
    });
  // Each run right after a raw one-call add of its own: under neighbours' load, a floor measured
  // minutes earlier says little, so every ratio is to the add timed just before it.
  // The same-size floor (raw adds of `per` rows a call) is timed right before it too.
  const floors: SpanTimes[] = [];
  const out: unknown[][] = [];
  for (const { per, measure } of runs) {
    const floor = await rawAdds(rows);
    floors.push(floor);
    const samePer = per === null ? null : per >= rows ? floor : await rawAdds(per);
    const r = await measure();
    const commits = r.commits > 0 ? r.commits : Math.ceil(rows / (r.run.includes('2,048') ? 2048 : 256));
    const secs = r.times.secs;
    out.push([
      r.run,
      rows,
      commits,
      secs,
      Math.round(rows / secs),
      floor.secs / secs,
      samePer === null ? null : samePer.secs / secs,
      samePer?.secs ?? null,
      r.compactions,
      ...cpuCells(r.times),
    ]);
  }
  const median = [...floors].sort((x, y) => x.secs - y.secs)[floors.length >> 1]!;
  out.unshift([
    `raw LanceDB table.add (pre-encoded Arrow, 1 call): median of ${floors.length}, one before each run below`,
    rows,
    1,
    median.secs,
    Math.round(rows / median.secs),
    1,
    null,
    null,
    0,
    ...cpuCells(median),
  ]);
  return { table: out, encodeMs, rawSecs: floors.map((f) => f.secs) };
}

/**
 * `rows` rows in calls of `per` (the call for rows `i`… made by `call(i)`), by `inFlight` callers
 * that each take the next call as soon as their last one resolved.
 */
async function inFlightCalls(
  rows: number,
  per: number,
  inFlight: number,
  call: (from: number) => Promise<unknown>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      for (let i = next; i < rows; i = next) {
        next += per;
        await call(i);
      }
    }),
  );
}

/** A run's CPU columns: process CPU seconds, the main thread's, and cores kept busy (CPU ÷ wall). */
function cpuCells(t: SpanTimes): [number, number | null, number] {
  return [t.cpuSecs, t.mainCpuSecs, t.cpuSecs / t.secs];
}
