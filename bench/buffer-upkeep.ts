// bench/buffer, part 3: samples and writes while a fold or a compaction of the 1M-row table runs
// in the background (issue #15: no sample during a fold or compaction takes longer than 50 ms).
// A loop like an RFT run's: each step writes 256 new experiences, samples 256 and acknowledges
// them. Run once with `compactEvery` 5 and no fold due (compactions of the appended fragments), once
// with `foldRows` 2,560 (a fold of the use counts every ~10 steps). Every call is timed and marked by
// whether upkeep ran during it.
import { performance } from 'node:perf_hooks';
import { ExperienceBuffer } from '../src/buffer/experience-buffer.ts';
import { batch } from './buffer-data.ts';

export interface UpkeepBenchResult {
  steps: number;
  jobs: number;
  /** Sample latencies (ms) of calls during which a background fold/compaction ran, and of the rest. */
  sampleDuring: number[];
  sampleOutside: number[];
  writeDuring: number[];
  writeOutside: number[];
}

export function emptyUpkeep(): UpkeepBenchResult {
  return { steps: 0, jobs: 0, sampleDuring: [], sampleOutside: [], writeDuring: [], writeOutside: [] };
}

export async function upkeepBench(
  dir: string,
  opts: {
    table: string;
    /** Ids of the new rows start here (above every row written so far). */
    firstRow: number;
    steps: number;
    seed: number;
    foldRows: number;
    compactEvery: number;
  },
): Promise<UpkeepBenchResult> {
  const buf = await ExperienceBuffer.open(dir, {
    table: opts.table,
    seed: opts.seed,
    sampler: { type: 'uniform', params: { maxUses: 4 } },
    foldRows: opts.foldRows,
    compactEvery: opts.compactEvery,
  });
  const out: UpkeepBenchResult = {
    steps: opts.steps,
    jobs: 0,
    sampleDuring: [],
    sampleOutside: [],
    writeDuring: [],
    writeOutside: [],
  };
  const before = buf.upkeepState.completed;
  // Leases from the sampling part were rolled back; continue after its steps.
  const first = buf.lastAcknowledgedStep + 1;
  const timed = async (f: () => Promise<unknown>, during: number[], outside: number[]) => {
    const jobs = buf.upkeepState.completed;
    const busy = buf.upkeepState.busy;
    const t = performance.now();
    await f();
    const ms = performance.now() - t;
    // Upkeep ran during the call if it was running at either end or a job finished meanwhile.
    if (busy || buf.upkeepState.busy || buf.upkeepState.completed !== jobs) during.push(ms);
    else outside.push(ms);
  };
  for (let k = 0; k < opts.steps; k++) {
    const step = first + k;
    const rows = batch(opts.firstRow + k * 256, 256, opts.seed + 7);
    await timed(() => buf.write(rows), out.writeDuring, out.writeOutside);
    await timed(() => buf.sample(256, { step }), out.sampleDuring, out.sampleOutside);
    await buf.ack(step);
  }
  out.jobs = buf.upkeepState.completed - before + (buf.upkeepState.busy ? 1 : 0);
  await buf.close();
  return out;
}
