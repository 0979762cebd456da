// bench/loop: what the RFT loop itself costs per step. A sync-mode run over the arithmetic tasks
// (32 tasks × 8 rollouts by default) with a rollout model that answers instantly and a trainer that
// does nothing, so every millisecond left is the framework's: selection, the workflow and reward,
// selector feedback, experience operators, the buffer write and sample, checkpoint bookkeeping.
// Stages are timed with the run's own hooks; the model's and trainer's own (tiny) time is measured
// and subtracted. Baseline in the same run: a raw LanceDB `add` of one step's rows (pre-encoded
// Arrow) plus a raw `takeRowIds` of as many rows — the storage floor of a step.
// Target (issue #15): framework time per step ≤ 20 ms at 32 tasks × 8 rollouts.
// Run: npx winnow bench loop [--steps 40] [--sampler fifo] [--json]
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { z } from 'zod';
import { encodeExperiences } from '../src/buffer/storage/experience-table.ts';
import { parseCommand } from '../src/cli/command-spec.ts';
import { formatTable } from '../src/cli/table.ts';
import { defineModel } from '../src/explorer/models/model-definition.ts';
import { Hooks } from '../src/lifecycle/hooks.ts';
import type { RftConfig } from '../src/lifecycle/run/rft-config.ts';
import type { RftEvents } from '../src/lifecycle/run/rft-events.ts';
import { loadRftConfig, runRft } from '../src/lifecycle/run/rft-run.ts';
import { defaultRegistries } from '../src/lifecycle/run/run-registries.ts';
import type { StepRecord } from '../src/lifecycle/run/step-record.ts';
import type { GenerateRequest, Generation, RolloutModel } from '../src/models/rollout-model.ts';
import { closeAllConnections, connect } from '../src/store/connection.ts';
import type { Trainer } from '../src/trainer/trainer.ts';
import { defineTrainer } from '../src/trainer/trainer-definition.ts';
import { batch } from './buffer-data.ts';
import { LOOP_BENCH_SPEC } from './loop-spec.ts';

const PIPELINE = resolve(import.meta.dirname, '..', 'pipelines', 'arithmetic-grpo.yaml');
const RESPONSE_TOKENS = 8;

/** Time spent inside the model and the trainer (subtracted: they stand for real work elsewhere). */
const outside = { ms: 0 };

/** `a+b=`, `a*b-c=`…: the arithmetic prompts' value (so half the rollouts can be right). */
function evaluate(prompt: string): number {
  const parts = prompt.replace(/=\s*$/, '').match(/\d+|[+\-*]/g) ?? [];
  const terms: number[] = [];
  let sign = 1;
  let product: number | null = null;
  let op = '+';
  for (const p of parts) {
    if (p === '+' || p === '-' || p === '*') {
      op = p;
      continue;
    }
    const v = Number(p);
    if (op === '*') product = (product ?? 1) * v;
    else {
      if (product !== null) terms.push(sign * product);
      sign = op === '-' ? -1 : 1;
      product = v;
    }
  }
  if (product !== null) terms.push(sign * product);
  return terms.reduce((a, b) => a + b, 0);
}

/** Answers instantly: right for even sample indices, off by one for odd ones (every group is mixed). */
class ZeroCostModel implements RolloutModel {
  readonly name = 'zero_cost';
  async generate(request: GenerateRequest): Promise<Generation[]> {
    const t = performance.now();
    const answer = evaluate(request.prompt ?? String(request.messages?.at(-1)?.content ?? ''));
    const out = Array.from({ length: request.n }, (_, i): Generation => {
      const text = String(i % 2 === 0 ? answer : answer + 1);
      return {
        text,
        promptTokens: [1, 2, 3, 4, 5, 6, 7, 8],
        tokens: Array.from({ length: RESPONSE_TOKENS }, (_, k) => 10 + ((i + k) % 50)),
        logprobs: Array.from({ length: RESPONSE_TOKENS }, () => -0.5),
        finishReason: 'stop',
      };
    });
    outside.ms += performance.now() - t;
    return out;
  }
}

const zeroCostModel = defineModel({
  name: 'zero_cost',
  description: 'bench only: answers instantly',
  params: z.strictObject({}),
  create: () => ({
    rollout: new ZeroCostModel(),
    description: 'zero-cost model (bench loop)',
    sync: async (v: number) => v,
  }),
});

/** Counts versions; trains nothing. */
class ZeroCostTrainer implements Trainer {
  readonly name = 'zero_cost';
  version = 0;
  async step(rows: readonly unknown[]) {
    const t = performance.now();
    this.version++;
    const metrics = { loss: 0, rows: rows.length };
    outside.ms += performance.now() - t;
    return metrics;
  }
  async save(dir: string) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'zero-cost-trainer.json'), JSON.stringify({ version: this.version }));
  }
  async load() {}
}

const zeroCostTrainer = defineTrainer({
  name: 'zero_cost',
  description: 'bench only: trains nothing',
  params: z.strictObject({}),
  create: () => new ZeroCostTrainer(),
});

/** The stages of a sync step, each from one hook event to the next. */
const STAGES = [
  ['select', 'beforeSelect', 'afterSelect'],
  ['rollout: workflow + reward (model excluded)', 'afterSelect', 'afterRollout'],
  ['selector feedback', 'afterRollout', 'afterFeedback'],
  ['experience operators', 'afterFeedback', 'afterExperienceOps'],
  ['rejected rows + buffer write', 'afterExperienceOps', 'afterBufferWrite'],
  ['buffer sample', 'afterBufferWrite', 'beforeTrainStep'],
  ['train step (trainer excluded)', 'beforeTrainStep', 'afterTrainStep'],
  ['sync, step record, checkpoint', 'afterTrainStep', 'stepEnd'],
] as const;
type Mark = (typeof STAGES)[number][1 | 2];

function pct(xs: readonly number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? Number.NaN : s[Math.min(s.length - 1, Math.floor(p * s.length))]!;
}

async function storageFloor(dir: string, rows: number, reps: number): Promise<number[]> {
  const conn = await connect(join(dir, 'floor'));
  const stored = (from: number) =>
    batch(from, rows, 1).map((exp, i) => ({
      exp,
      seq: from + i,
      useCount: 0,
      priority: 0,
      lastUsedStep: -1,
      lastUsedAt: 0,
      consumed: false,
    }));
  const first = encodeExperiences(stored(0));
  const table = await conn.createEmptyTable('floor', first.schema, {
    storageOptions: { new_table_enable_stable_row_ids: 'true' },
  });
  const out: number[] = [];
  for (let r = 0; r < reps; r++) {
    const data = r === 0 ? first : encodeExperiences(stored(r * rows));
    const t = performance.now();
    await table.add(data);
    const ids = Array.from({ length: rows }, (_, i) => r * rows + i);
    await table.takeRowIds(ids).toArrow();
    out.push(performance.now() - t);
  }
  return out;
}

export async function loopBenchMain(argv: string[]): Promise<number> {
  const parsed = parseCommand(LOOP_BENCH_SPEC, argv);
  if (!parsed) return 0;
  const { steps, warmup, tasks, repeat, sampler, seed, json } = parsed.values;
  const dir = mkdtempSync(join(tmpdir(), 'winnow-bench-loop-'));
  try {
    const registries = defaultRegistries();
    registries.models.register(zeroCostModel as never);
    registries.trainers.register(zeroCostTrainer as never);
    const base = loadRftConfig(PIPELINE, registries);
    const total = warmup + steps;
    const config: RftConfig = {
      ...base,
      name: 'bench-loop',
      seed,
      monitors: [],
      explorer: {
        ...base.explorer,
        model: { type: 'zero_cost', params: {} },
        batchTasks: tasks,
        repeat,
      },
      trainer: { type: 'zero_cost', params: {} },
      buffer: { ...base.buffer, sampler: { type: sampler, params: {} } },
      lifecycle: { ...base.lifecycle, steps: total, checkpointEvery: 10, trainBatch: tasks * repeat },
    };
    delete (config as { heldout?: unknown }).heldout;
    const marks = new Map<number, Partial<Record<Mark, number>>>();
    const outsideAt = new Map<number, number>();
    const hooks = new Hooks<RftEvents>();
    const mark = (event: Mark) => (p: { step: number }) => {
      const m = marks.get(p.step) ?? {};
      m[event] = performance.now();
      marks.set(p.step, m);
      if (event === 'beforeSelect') outsideAt.set(p.step, outside.ms);
    };
    for (const e of [
      'beforeSelect',
      'afterSelect',
      'afterRollout',
      'afterFeedback',
      'afterExperienceOps',
      'afterBufferWrite',
      'beforeTrainStep',
      'afterTrainStep',
    ] as const)
      hooks.on(e, mark(e), `bench-${e}`);
    const framework: number[] = [];
    const perStage = STAGES.map(() => [] as number[]);
    const records: StepRecord[] = [];
    await runRft(config, {
      baseDir: resolve(import.meta.dirname, '..', 'pipelines'),
      dbDir: join(dir, 'db'),
      runDir: join(dir, 'run'),
      hooks,
      registries,
      onStep: (record) => {
        const end = performance.now();
        const m = marks.get(record.step) ?? {};
        m.stepEnd = end;
        records.push(record);
        if (record.step <= warmup) return;
        const spent = outside.ms - (outsideAt.get(record.step) ?? outside.ms);
        framework.push(end - m.beforeSelect! - spent);
        STAGES.forEach(([, from, to], i) => {
          perStage[i]!.push((m[to] ?? Number.NaN) - (m[from] ?? Number.NaN));
        });
      },
    });
    // Model and trainer time lie inside the rollout and train stages: take it out of those.
    const floor = await storageFloor(dir, tasks * repeat, Math.min(steps, 20));
    const floorP50 = pct(floor, 0.5);
    const rows: unknown[][] = [
      ['floor: raw LanceDB add + takeRowIds of one step (pre-encoded)', floorP50, pct(floor, 0.95), 1],
      ...STAGES.map(([name], i) => [
        `  ${name}`,
        pct(perStage[i]!, 0.5),
        pct(perStage[i]!, 0.95),
        pct(perStage[i]!, 0.5) / floorP50,
      ]),
      [
        'framework time per step (model and trainer excluded)',
        pct(framework, 0.5),
        pct(framework, 0.95),
        pct(framework, 0.5) / floorP50,
      ],
    ];
    const rollouts = records.at(-1)?.rollouts ?? 0;
    if (json) {
      const head = ['stage', 'p50Ms', 'p95Ms', 'ratioToFloor'];
      process.stdout.write(
        `${JSON.stringify(
          {
            steps,
            warmup,
            tasks,
            repeat,
            sampler,
            rolloutsPerStep: rollouts,
            frameworkP50Ms: pct(framework, 0.5),
            frameworkP95Ms: pct(framework, 0.95),
            targetMs: 20,
            stages: rows.map((r) => Object.fromEntries(head.map((h, k) => [h, r[k]]))),
          },
          null,
          2,
        )}\n`,
      );
      return 0;
    }
    process.stdout.write(
      `RFT loop, sync mode: ${tasks} tasks × ${repeat} rollouts per step (${rollouts} rollouts), sampler ${sampler}, ${steps} timed steps after ${warmup} untimed; zero-cost model and trainer\n`,
    );
    process.stdout.write(`${formatTable(['stage', 'p50 ms', 'p95 ms', 'ratio to floor'], rows)}\n`);
    process.stdout.write(
      `\ntarget: framework time per step ≤ 20 ms → p50 ${pct(framework, 0.5).toFixed(1)} ms, p95 ${pct(framework, 0.95).toFixed(1)} ms\n`,
    );
    return 0;
  } finally {
    closeAllConnections();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`)
  process.exitCode = await loopBenchMain(process.argv.slice(2));
