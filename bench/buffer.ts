// bench/buffer: the LanceDB experience buffer against raw LanceDB operations on the same data,
// measured in the same run.
//   1. writes: 100k experiences with 64-token arrays (tokens, logprobs, action mask) through
//      ExperienceBuffer.write (one call, explorer-step batches) vs one raw `table.add` of the same
//      rows already encoded as Arrow (the floor: no validation, no dedup, no bookkeeping);
//   2. sampling: batches of 256 from a 1M-row buffer, per sampler (sample = choose + lease
//      commit + payload fetch checked against the index by id and seq), each with the row store
//      (src/buffer/storage/payload-rows.ts) and, as the same-run baseline, taking every payload from LanceDB; vs raw `query().where(id IN (…256 ids)).limit(256)` (fetching
//      chosen rows by key the plain way) and raw `takeRowIds` of 256 random rows (the fetch floor).
// Targets (issue #15): write with ≥ 2,048 per call ≥ 0.8× raw add, 256 per call ≥ 0.5×; sample(256)
// from 1M rows p50 ≤ 10 ms and p95 ≤ 25 ms for every sampler.
// Run: npx node bench/buffer.ts [--rows 1000000] [--write-rows 100000] [--samples 40]
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { ExperienceBuffer } from '../src/buffer/experience-buffer.ts';
import type { ExperienceBufferConfigInput } from '../src/buffer/experience-config.ts';
import { parseCommand } from '../src/cli/command-spec.ts';
import { formatTable } from '../src/cli/table.ts';
import { Rng } from '../src/core/rng.ts';
import { closeAllConnections } from '../src/store/connection.ts';
import { sqlIn } from '../src/store/sql.ts';
import { BUFFER_BENCH_SPEC } from './bench-specs.ts';
import { batch, TOKENS } from './buffer-data.ts';
import { emptyUpkeep, type UpkeepBenchResult, upkeepBench } from './buffer-upkeep.ts';
import { writeBench } from './buffer-writes.ts';

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((x, y) => x - y);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))]!;
}

async function timeReps(reps: number, f: (i: number) => Promise<unknown>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < reps; i++) {
    const t = performance.now();
    await f(i);
    out.push(performance.now() - t);
  }
  return out;
}

const log = (s: string) => process.stderr.write(`${s}\n`);
/** Marks the sampling rows measured with every payload taken from LanceDB (no row store). */
const LANCE_TAKE = ' [payload from LanceDB]';

interface SampleRow {
  name: string;
  p50: number;
  p95: number;
  mean: number;
  returned: number;
}

async function sampleBench(dir: string, rows: number, samples: number, seed: number) {
  log(`building a ${rows.toLocaleString('en-US')}-row buffer (100k per write)…`);
  const build = await ExperienceBuffer.open(dir, {
    table: 'big',
    sampler: { type: 'fifo' },
    compactEvery: 1000,
  });
  const t0 = performance.now();
  for (let i = 0; i < rows; i += 100_000) {
    await build.write(batch(i, Math.min(100_000, rows - i), seed));
    log(`  ${Math.min(rows, i + 100_000).toLocaleString('en-US')} rows`);
  }
  const buildSecs = (performance.now() - t0) / 1000;
  log('compacting (a long run converges to compacted fragments)…');
  const c0 = performance.now();
  await build.compact();
  const compactSecs = (performance.now() - c0) / 1000;
  await build.close();

  const samplers: Array<[string, ExperienceBufferConfigInput]> = [
    ['fifo', { sampler: { type: 'fifo' } }],
    ['lifo', { sampler: { type: 'lifo' } }],
    [
      'version_priority (decay 0.5, cooldown 1)',
      { sampler: { type: 'version_priority', params: { decay: 0.5, cooldownSteps: 1 } } },
    ],
    [
      'advantage_priority |A| (α 0.6, β 0.4)',
      { sampler: { type: 'advantage_priority', params: { alpha: 0.6, beta: 0.4 } } },
    ],
    ['uniform (max 4 uses)', { sampler: { type: 'uniform', params: { maxUses: 4 } } }],
  ];
  const results: SampleRow[] = [];
  let openSecs = 0;
  let ackMs = 0;
  let foldMs = 0;
  let last: ExperienceBuffer | null = null;
  // The same samplers with every payload taken from LanceDB (WINNOW_ROW_STORE=off, before the row store).
  const baselines = samplers.map(([name, cfg]) => [`${name}${LANCE_TAKE}`, cfg, 'off'] as const);
  const runs = [...baselines, ...samplers.map(([name, cfg]) => [name, cfg, 'on'] as const)];
  const savedStore = process.env.WINNOW_ROW_STORE;
  for (const [name, cfg, store] of runs) {
    process.env.WINNOW_ROW_STORE = store;
    const o0 = performance.now();
    const buf = await ExperienceBuffer.open(dir, { table: 'big', seed, ...cfg });
    openSecs = (performance.now() - o0) / 1000;
    let returned = 0;
    await buf.sample(256, { step: 1 }); // warm-up (JIT, file handles)
    const ts = await timeReps(samples, async (i) => {
      returned += (await buf.sample(256, { step: i + 2 })).experiences.length;
    });
    results.push({
      name,
      p50: pct(ts, 0.5),
      p95: pct(ts, 0.95),
      mean: ts.reduce((a, b) => a + b, 0) / ts.length,
      returned: returned / samples,
    });
    log(`  ${name}: p50 ${pct(ts, 0.5).toFixed(1)} ms`);
    if (name !== runs.at(-1)![0]) {
      await buf.recover(null); // roll the leases back so the next sampler sees a fresh buffer
      await buf.close();
      continue;
    }
    const a0 = performance.now();
    await buf.ack(samples + 1);
    ackMs = performance.now() - a0;
    const f0 = performance.now();
    await buf.flush();
    foldMs = performance.now() - f0;
    last = buf;
  }
  if (savedStore === undefined) delete process.env.WINNOW_ROW_STORE;
  else process.env.WINNOW_ROW_STORE = savedStore;

  // Raw baselines on the same table.
  const table = last!.table;
  const rng = new Rng(seed + 1);
  const randomIds = () => rng.sampleDistinct(rows, 256);
  const rawIn = await timeReps(Math.min(samples, 10), async () => {
    await table
      .query()
      .where(
        sqlIn(
          'id',
          randomIds().map((i) => `exp-${i}`),
        ),
      )
      .limit(256)
      .toArrow();
  });
  const rowIds = (await table.query().select(['seq']).withRowId().toArrow())
    .getChild('_rowid')!
    .toArray() as BigUint64Array;
  const rawTake = await timeReps(samples, async () => {
    await table
      .takeRowIds(
        randomIds()
          .map((i) => rowIds[i]!)
          .sort((x, y) => (x < y ? -1 : 1)),
      )
      .toArrow();
  });
  const rawScan = await timeReps(Math.min(samples, 10), async () => {
    await table.query().where('use_count = 0').limit(256).toArrow();
  });
  await last!.close();
  return { results, rawIn, rawTake, rawScan, buildSecs, compactSecs, openSecs, ackMs, foldMs };
}

export async function bufferBenchMain(argv: string[]): Promise<number> {
  const parsed = parseCommand(BUFFER_BENCH_SPEC, argv);
  if (!parsed) return 0;
  const { rows, 'write-rows': writeRows, samples, seed, json } = parsed.values;
  const dir = mkdtempSync(join(tmpdir(), 'winnow-bench-buffer-'));
  try {
    log(`writes: ${writeRows.toLocaleString('en-US')} experiences with ${TOKENS}-token arrays…`);
    const w = await writeBench(join(dir, 'w'), writeRows, seed);
    closeAllConnections();
    const s = await sampleBench(join(dir, 's'), rows, samples, seed);
    log('samples and writes beside background compactions, then beside background folds…');
    const steps = 40;
    const base = { table: 'big', steps, seed };
    // Both places background upkeep can run (src/buffer/storage/upkeep-runner.ts), one after the other on
    // the same table: the default, a process of its own, then inline (the buffer's process).
    const modes = ['process', 'inline'] as const;
    const runs: Record<(typeof modes)[number], { uc: UpkeepBenchResult; uf: UpkeepBenchResult }> = {
      process: { uc: emptyUpkeep(), uf: emptyUpkeep() },
      inline: { uc: emptyUpkeep(), uf: emptyUpkeep() },
    };
    let firstRow = rows;
    const saved = process.env.WINNOW_UPKEEP;
    for (const mode of modes) {
      process.env.WINNOW_UPKEEP = mode;
      const uc = await upkeepBench(join(dir, 's'), { ...base, firstRow, foldRows: 1e9, compactEvery: 5 });
      firstRow += steps * 256;
      const uf = await upkeepBench(join(dir, 's'), {
        ...base,
        firstRow,
        foldRows: 2_560,
        compactEvery: 1_000,
      });
      firstRow += steps * 256;
      runs[mode] = { uc, uf };
    }
    if (saved === undefined) delete process.env.WINNOW_UPKEEP;
    else process.env.WINNOW_UPKEEP = saved;
    const { uc, uf } = runs.process;
    const inl = runs.inline;
    const maxOf = (xs: number[]) => (xs.length === 0 ? Number.NaN : Math.max(...xs));
    const outside = [...uc.sampleOutside, ...uf.sampleOutside];
    const wOutside = [...uc.writeOutside, ...uf.writeOutside];
    const inlOutside = [...inl.uc.sampleOutside, ...inl.uf.sampleOutside];
    const line = (name: string, xs: number[], base: number[]) => [
      name,
      xs.length,
      pct(xs, 0.5),
      pct(xs, 0.95),
      maxOf(xs),
      pct(xs, 0.5) / pct(base, 0.5),
    ];
    const upkeepRows: unknown[][] = [
      line('sample(256), no upkeep running', outside, outside),
      line('sample(256) while a compaction runs (upkeep process)', uc.sampleDuring, outside),
      line('sample(256) while a fold runs (upkeep process)', uf.sampleDuring, outside),
      line('write(256), no upkeep running', wOutside, wOutside),
      line('write(256) while a compaction runs (upkeep process)', uc.writeDuring, wOutside),
      line('write(256) while a fold runs (upkeep process)', uf.writeDuring, wOutside),
      line('inline upkeep: sample(256), no upkeep running', inlOutside, inlOutside),
      line('inline upkeep: sample(256) while a compaction runs', inl.uc.sampleDuring, inlOutside),
      line('inline upkeep: sample(256) while a fold runs', inl.uf.sampleDuring, inlOutside),
    ];
    const u = { steps, jobs: uc.jobs + uf.jobs, sampleDuring: [...uc.sampleDuring, ...uf.sampleDuring] };

    const rawTakeP50 = pct(s.rawTake, 0.5);
    const rawInP50 = pct(s.rawIn, 0.5);
    const sampleRows: unknown[][] = [
      [
        'raw query().where(id IN 256).limit(256)',
        pct(s.rawIn, 0.5),
        pct(s.rawIn, 0.95),
        256,
        rawInP50 / rawTakeP50,
        1,
      ],
      [
        'raw query().where(use_count = 0).limit(256)',
        pct(s.rawScan, 0.5),
        pct(s.rawScan, 0.95),
        256,
        pct(s.rawScan, 0.5) / rawTakeP50,
        pct(s.rawScan, 0.5) / rawInP50,
      ],
      ['raw takeRowIds(256 random rows)', rawTakeP50, pct(s.rawTake, 0.95), 256, 1, rawTakeP50 / rawInP50],
      ...s.results.map((r) => {
        // Each sampler with the row store against the same sampler taking from LanceDB, same run.
        const base = s.results.find((b) => b.name === `${r.name}${LANCE_TAKE}`) ?? r;
        return [
          `sample(256): ${r.name}`,
          r.p50,
          r.p95,
          r.returned,
          r.p50 / rawTakeP50,
          r.p50 / rawInP50,
          r.p50 / base.p50,
        ];
      }),
    ];
    if (json) {
      const writeHead = [
        'run',
        'rows',
        'commits',
        'seconds',
        'rowsPerSec',
        'ratioToRawAdd',
        'ratioToRawAddSamePerCall',
        'rawSamePerCallSeconds',
        'automaticCompactions',
        'cpuSeconds',
        'mainThreadCpuSeconds',
        'coresBusy',
      ];
      const sampleHead = [
        'operation',
        'p50Ms',
        'p95Ms',
        'rows',
        'ratioToRawTake',
        'ratioToRawIdIn',
        'ratioToLanceTake',
      ];
      const objects = (head: string[], table: unknown[][]) =>
        table.map((r) => Object.fromEntries(head.map((h, k) => [h, r[k]])));
      process.stdout.write(
        `${JSON.stringify(
          {
            writes: objects(writeHead, w.table),
            encodeMs: w.encodeMs,
            cores: availableParallelism(),
            sampling: objects(sampleHead, sampleRows),
            rows,
            buildSecs: s.buildSecs,
            compactSecs: s.compactSecs,
            openSecs: s.openSecs,
            ackMs: s.ackMs,
            foldMs: s.foldMs,
            upkeep: {
              jobs: u.jobs,
              steps: u.steps,
              rows: objects(['operation', 'calls', 'p50Ms', 'p95Ms', 'maxMs', 'ratioToNoUpkeep'], upkeepRows),
            },
          },
          null,
          2,
        )}\n`,
      );
      return 0;
    }
    process.stdout.write(
      `Writes: ${writeRows.toLocaleString('en-US')} experiences, ${TOKENS} tokens each, on ${availableParallelism()} cores (Arrow encoding of all rows: ${w.encodeMs.toFixed(0)} ms, included in the buffer rows)\n`,
    );
    process.stdout.write(
      `${formatTable(['run', 'rows', 'commits', 'seconds', 'rows/s', 'ratio to raw add, 1 call (strict)', 'ratio to raw add, same rows per call', 'raw same-per-call s', 'compactions', 'CPU s', 'main-thread CPU s', 'cores busy'], w.table)}\n\n`,
    );
    process.stdout.write(
      `Sampling 256 from ${rows.toLocaleString('en-US')} rows (${samples} calls each; built in ${s.buildSecs.toFixed(1)} s = ${Math.round(rows / s.buildSecs).toLocaleString('en-US')} rows/s, compacted in ${s.compactSecs.toFixed(1)} s, index rebuilt on open in ${s.openSecs.toFixed(1)} s)\n`,
    );
    process.stdout.write(
      `${formatTable(['operation', 'p50 ms', 'p95 ms', 'rows', 'ratio to raw take', 'ratio to raw id IN', 'ratio to LanceDB take'], sampleRows)}\n`,
    );
    process.stdout.write(
      `ack(${samples} steps of leases): ${s.ackMs.toFixed(1)} ms; fold of ~${(samples * 256).toLocaleString('en-US')} use counts into the ${rows.toLocaleString('en-US')}-row table: ${s.foldMs.toFixed(0)} ms\n`,
    );
    process.stdout.write(
      `\nBeside background upkeep: twice ${u.steps} steps of write(256) + sample(256) + ack on the ${rows.toLocaleString('en-US')}-row table, first with a compaction every 5 writes (${uc.jobs} jobs), then a fold every 2,560 acknowledged uses (${uf.jobs} jobs), with upkeep in its own process (the default); then the same with upkeep inline in the buffer's process (${inl.uc.jobs} + ${inl.uf.jobs} jobs)\n`,
    );
    process.stdout.write(
      `${formatTable(['operation', 'calls', 'p50 ms', 'p95 ms', 'max ms', 'ratio to no upkeep'], upkeepRows)}\n`,
    );
    // Each write row's two ratios, named by the row's own words (one line per target).
    const writeRatios = (per: string) =>
      w.table
        .filter(
          (r) => String(r[0]).includes(`, ${per} per call`) && String(r[0]).startsWith('ExperienceBuffer'),
        )
        .map((r) => {
          const what = String(r[0])
            .replace(/^ExperienceBuffer\./, '')
            .replace(`, ${per} per call`, '');
          return `${what} ${Number(r[5]).toFixed(2)} (same-size ${Number(r[6]).toFixed(2)})`;
        })
        .join('; ');
    const big = `2,048 a call: ${writeRatios('2,048')}; all ${writeRows.toLocaleString('en-US')} in one call: ${writeRatios(writeRows.toLocaleString('en-US'))}`;
    const measured = s.results.filter((r) => !r.name.endsWith(LANCE_TAKE));
    const worstP50 = Math.max(...measured.map((r) => r.p50));
    const worstP95 = Math.max(...measured.map((r) => r.p95));
    process.stdout.write(
      `\ntargets (ratio to a raw 1-call add; in brackets to raw adds of the same rows per call): ≥ 2,048 per call ≥ 0.8× → ${big}\n256 per call ≥ 0.5× → ${writeRatios('256')}\nsample p50 ≤ 10 ms → worst ${worstP50.toFixed(1)} ms, p95 ≤ 25 ms → worst ${worstP95.toFixed(1)} ms; no sample during upkeep > 50 ms → max ${maxOf(u.sampleDuring).toFixed(1)} ms\n`,
    );
    return 0;
  } finally {
    closeAllConnections();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`)
  process.exitCode = await bufferBenchMain(process.argv.slice(2));
