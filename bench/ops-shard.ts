// One shard of `bench ops`: runs one task operator over rows [from, to) of the synthetic GSM8K-sized
// stream (bench/ops-rows.ts) in batches, and prints one JSON line: rows in, kept, dropped, seconds
// (generating the rows and processing them, after a warm-up on a separate instance), peak RSS.
// Started as a child process by bench/ops.ts (two at once for row-wise operators: both cores).
//   node bench/ops-shard.ts '{"op":"length_filter","params":{},"from":0,"to":1000,"seed":1,"batch":1000,"baseDir":"."}'
import { z } from 'zod';
import { Rng } from '../src/core/rng.ts';
import type { Task } from '../src/core/task.ts';
import type { Operator, OperatorContext } from '../src/operators/operator.ts';
import { taskOperatorRegistry } from '../src/operators/registries.ts';
import { opsTask } from './ops-rows.ts';

/** The operator name of the baseline: every row passes through unchanged. */
export const NOOP = 'noop';

export const ShardSpecSchema = z.strictObject({
  op: z.string(),
  params: z.record(z.string(), z.unknown()),
  from: z.number().int().nonnegative(),
  to: z.number().int().nonnegative(),
  seed: z.number().int(),
  batch: z.number().int().positive(),
  baseDir: z.string(),
  /** An operator applied to each batch first, untimed (semantic_dedup's vectors come from embed). */
  prepare: z.strictObject({ op: z.string(), params: z.record(z.string(), z.unknown()) }).optional(),
});
export type ShardSpec = z.infer<typeof ShardSpecSchema>;

export interface ShardResult {
  rows: number;
  kept: number;
  dropped: number;
  seconds: number;
  maxRssMB: number;
}

function build(spec: Pick<ShardSpec, 'op' | 'params'>): Operator<Task> {
  if (spec.op === NOOP)
    return { name: NOOP, kind: 'map', process: (batch) => ({ rows: [...batch], dropped: [] }) };
  const def = taskOperatorRegistry().get(spec.op);
  return def.create(def.params.parse(spec.params));
}

async function runShard(spec: ShardSpec): Promise<ShardResult> {
  const ctx: OperatorContext = {
    rng: new Rng(spec.seed),
    seed: spec.seed,
    runId: 'bench-ops',
    warn: () => {},
    baseDir: spec.baseDir,
  };
  // Warm-up on its own instance: loads models (ELD, tokenizers) and JIT-compiles, without
  // touching the measured instance's state (a dedup's seen set).
  const prepare = spec.prepare ? build(spec.prepare) : null;
  const prepared = async (rows: Task[]) => (prepare ? (await prepare.process(rows, ctx)).rows : rows);
  const warm = build(spec);
  await warm.process(
    await prepared(
      Array.from({ length: Math.min(256, spec.to - spec.from) }, (_, i) => opsTask(spec.from + i)),
    ),
    ctx,
  );
  const op = build(spec);
  let kept = 0;
  let dropped = 0;
  let untimed = 0n;
  const t0 = process.hrtime.bigint();
  for (let start = spec.from; start < spec.to; start += spec.batch) {
    const end = Math.min(spec.to, start + spec.batch);
    let batch: Task[] = new Array(end - start);
    for (let i = start; i < end; i++) batch[i - start] = opsTask(i);
    const p0 = process.hrtime.bigint();
    batch = await prepared(batch);
    untimed += process.hrtime.bigint() - p0;
    const r = await op.process(batch, ctx);
    kept += r.rows.length;
    dropped += r.dropped.length;
  }
  if (op.flush) {
    const r = await op.flush(ctx);
    kept += r.rows.length;
    dropped += r.dropped.length;
  }
  const seconds = Number(process.hrtime.bigint() - t0 - untimed) / 1e9;
  return {
    rows: spec.to - spec.from,
    kept,
    dropped,
    seconds,
    maxRssMB: process.resourceUsage().maxRSS / 1024,
  };
}

if (import.meta.main) {
  const spec = ShardSpecSchema.parse(JSON.parse(process.argv[2] ?? '{}'));
  process.stdout.write(`${JSON.stringify(await runShard(spec))}\n`);
}
