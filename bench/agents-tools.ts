// The tool-use demo's bench (issue #18): the tiny policy trained by RL with a calculator
// (pipelines/arithmetic-tools.yaml) against the same run without one (`tool: false`), same start,
// same length, on several seeds. Reports, per seed and step: the tool-use rate of the training
// rollouts on 3-digit sums with carries ("hard", where the tool helps) and on 1-digit sums
// ("easy"), and greedy held-out accuracy (all tasks, and hard ones) of each checkpoint.
// Run: winnow bench agents [--seeds 1,2,3] [--steps 30] [--tool-cost 0.5] [--out file.json] [--json]
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ExperienceBuffer } from '../src/buffer/experience-buffer.ts';
import { parseCommand } from '../src/cli/command-spec.ts';
import { UsageError } from '../src/core/usage-error.ts';
import { readYamlFile } from '../src/core/yaml-file.ts';
import { Hooks } from '../src/lifecycle/hooks.ts';
import type { RftEvents } from '../src/lifecycle/run/rft-events.ts';
import { parseRftConfig, runRft } from '../src/lifecycle/run/rft-run.ts';
import type { TinyPolicy } from '../src/tiny/policy.ts';
import { loadTinyPolicy } from '../src/tiny/weights-file.ts';
import { AGENTS_BENCH_SPEC } from './agents-spec.ts';

const ROOT = join(import.meta.dirname, '..');
const PIPELINE = join(ROOT, 'pipelines/arithmetic-tools.yaml');
const START = join(ROOT, 'datasets/arithmetic/tool-start');

interface Row {
  id: string;
  prompt: string;
  answer: string;
  features: { digits: number; carries: number };
}
const readRows = (f: string) =>
  readFileSync(join(ROOT, f), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Row);
const isHard = (r: Row) => r.features.digits === 3 && r.features.carries >= 1;
const isEasy = (r: Row) => r.features.digits === 1;

export interface Point {
  step: number;
  heldoutAccuracy: number;
  hardAccuracy: number;
  /** Greedy held-out answers that called the calculator, on hard and easy tasks. */
  heldoutHardCalls: number;
  heldoutEasyCalls: number;
}
export interface RunCurve {
  seed: number;
  tool: boolean;
  /** Per explore step: share of training rollouts that called the calculator. */
  trainHardCalls: number[];
  trainEasyCalls: number[];
  checkpoints: Point[];
  seconds: number;
}

/** Greedy held-out accuracy of one policy, answering with the calculator where it calls it (and `tool`). */
async function evaluate(policy: TinyPolicy, heldout: Row[], tool: boolean, step: number): Promise<Point> {
  const gens = await policy.generateBatch(
    heldout.map((r) => ({ prompt: r.prompt, n: 1, temperature: 0, maxTokens: 8 })),
  );
  let right = 0;
  let hardRight = 0;
  let hardCalls = 0;
  let easyCalls = 0;
  heldout.forEach((r, i) => {
    const text = gens[i]![0]!.text.trim();
    const call = text.startsWith('=');
    // The calculator is exact: a call answers right whenever the tool exists.
    const ok = call ? tool : text === r.answer;
    if (ok) right++;
    if (isHard(r)) {
      if (ok) hardRight++;
      if (call) hardCalls++;
    }
    if (isEasy(r) && call) easyCalls++;
  });
  const hard = heldout.filter(isHard).length;
  const easy = heldout.filter(isEasy).length;
  return {
    step,
    heldoutAccuracy: right / heldout.length,
    hardAccuracy: hardRight / hard,
    heldoutHardCalls: hardCalls / hard,
    heldoutEasyCalls: easyCalls / easy,
  };
}

/**
 * Copy each checkpoint's explorer weights into `folder` (as `step-NNNNNN`) when the run reports it.
 * The run's own folder keeps only its last three checkpoints (older ones are pruned as new ones are
 * written), so a bench that read the run folder afterwards saw only those three — steps 20, 25, 30
 * of a 30-step run — although the hook had copied all six.
 */
export function keepEveryCheckpoint(hooks: Hooks<RftEvents>, folder: string): Hooks<RftEvents> {
  return hooks.on('onCheckpoint', ({ step, dir }) => {
    cpSync(join(dir, 'explorer'), join(folder, `step-${String(step).padStart(6, '0')}`), { recursive: true });
  });
}

/** The explorer weights `keepEveryCheckpoint` copied, in step order. */
export function keptCheckpoints(folder: string): { step: number; dir: string }[] {
  if (!existsSync(folder)) return [];
  return readdirSync(folder)
    .filter((d) => /^step-\d+$/.test(d))
    .map((d) => ({ step: Number(d.slice(5)), dir: join(folder, d) }))
    .sort((a, b) => a.step - b.step);
}

async function oneRun(
  seed: number,
  tool: boolean,
  steps: number,
  work: string,
  toolCost: number | undefined,
): Promise<RunCurve> {
  const t0 = performance.now();
  const raw = readYamlFile(PIPELINE) as {
    seed: number;
    heldout?: unknown;
    lifecycle: { steps: number };
    explorer: { workflow: { params: { environment: { params: { tool: boolean; toolCost: number } } } } };
  };
  raw.seed = seed;
  raw.heldout = undefined;
  raw.lifecycle.steps = steps;
  raw.explorer.workflow.params.environment.params.tool = tool;
  if (toolCost !== undefined) raw.explorer.workflow.params.environment.params.toolCost = toolCost;
  const config = parseRftConfig(JSON.parse(JSON.stringify(raw)), PIPELINE);
  const runDir = join(work, `run-${seed}-${tool}`);
  const db = join(work, `db-${seed}-${tool}`);
  // The run keeps only its last 3 checkpoints: keep a copy of every one's explorer weights.
  const kept = join(work, `weights-${seed}-${tool}`);
  const hooks = keepEveryCheckpoint(new Hooks<RftEvents>(), kept);
  const report = await runRft(config, { baseDir: join(ROOT, 'pipelines'), dbDir: db, runDir, hooks });
  const train = new Map(readRows('datasets/arithmetic/train.jsonl').map((r) => [r.id, r]));
  const buffer = await ExperienceBuffer.open(db, { table: `${report.runId}_experiences` });
  const exps = await buffer.read();
  await buffer.close();
  const rate = (pick: (r: Row) => boolean) =>
    Array.from({ length: steps }, (_, k) => {
      const rows = exps.filter((e) => e.exploreStep === k + 1 && pick(train.get(e.taskId)!));
      // A call is an answer starting with '=', counted in both runs (without the tool it is just wrong).
      return rows.length === 0
        ? Number.NaN
        : rows.filter((e) => e.response.trim().startsWith('=')).length / rows.length;
    });
  const heldout = readRows('datasets/arithmetic/heldout.jsonl');
  const points: Point[] = [];
  const start = await loadTinyPolicy(START);
  points.push(await evaluate(start, heldout, tool, 0));
  start.dispose();
  for (const ck of keptCheckpoints(kept)) {
    const policy = await loadTinyPolicy(ck.dir);
    points.push(await evaluate(policy, heldout, tool, ck.step));
    policy.dispose();
  }
  return {
    seed,
    tool,
    trainHardCalls: rate(isHard),
    trainEasyCalls: rate(isEasy),
    checkpoints: points,
    seconds: (performance.now() - t0) / 1000,
  };
}

const pct = (x: number) => (Number.isNaN(x) ? '  –  ' : `${(x * 100).toFixed(1)}%`);
/** Mean over a window of steps (ignoring steps without such tasks). */
const windowMean = (xs: number[], from: number, to: number) => {
  const w = xs.slice(from, to).filter((x) => !Number.isNaN(x));
  return w.length === 0 ? Number.NaN : w.reduce((a, b) => a + b, 0) / w.length;
};

/** Mean of a checkpoint figure over the runs of one arm (tool or not). */
const armMean = (curves: RunCurve[], tool: boolean, pick: (p: Point) => number) => {
  const xs = curves.filter((c) => c.tool === tool).map((c) => pick(c.checkpoints.at(-1)!));
  return xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
};
const ratio = (a: number, b: number) => (b > 0 ? (a / b).toFixed(2) : a > 0 ? '∞' : '–');

export async function agentsBenchMain(argv: string[]): Promise<number> {
  const parsed = parseCommand(AGENTS_BENCH_SPEC, argv);
  if (!parsed) return 0;
  const v = parsed.values;
  const seedText = v.seeds ?? ['1', '2', '3'];
  const seeds = seedText.map(Number);
  const bad = seedText.find((x) => !/^\d+$/.test(x));
  if (bad !== undefined) throw new UsageError(`--seeds takes whole numbers, got '${bad}'`);
  const steps = v.steps;
  const work = mkdtempSync(join(tmpdir(), 'winnow-agents-bench-'));
  const curves: RunCurve[] = [];
  try {
    for (const seed of seeds)
      for (const tool of [true, false]) {
        const c = await oneRun(seed, tool, steps, work, v['tool-cost']);
        curves.push(c);
        const last = c.checkpoints.at(-1)!;
        console.error(
          `seed ${seed} ${tool ? 'tool   ' : 'no tool'}: hard-task calls ${pct(windowMean(c.trainHardCalls, 0, 3))} → ${pct(windowMean(c.trainHardCalls, steps - 3, steps))}, easy ${pct(windowMean(c.trainEasyCalls, 0, 3))} → ${pct(windowMean(c.trainEasyCalls, steps - 3, steps))}; held-out ${pct(c.checkpoints[0]!.heldoutAccuracy)} → ${pct(last.heldoutAccuracy)}, 3-digit carries ${pct(c.checkpoints[0]!.hardAccuracy)} → ${pct(last.hardAccuracy)} (${c.seconds.toFixed(0)} s)`,
        );
      }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  const summary = {
    heldoutAccuracy: {
      tool: armMean(curves, true, (p) => p.heldoutAccuracy),
      noTool: armMean(curves, false, (p) => p.heldoutAccuracy),
    },
    hardAccuracy: {
      tool: armMean(curves, true, (p) => p.hardAccuracy),
      noTool: armMean(curves, false, (p) => p.hardAccuracy),
    },
  };
  if (v.out) writeFileSync(v.out, `${JSON.stringify({ steps, seeds, curves, summary }, null, 1)}\n`);
  if (v.json) {
    console.log(JSON.stringify({ steps, seeds, curves, summary }));
    return 0;
  }
  console.log(
    '| seed | run | calls on hard tasks (first 3 → last 3 steps) | calls on easy tasks | held-out accuracy (start → end) | 3-digit carries accuracy |',
  );
  console.log('|---|---|---|---|---|---|');
  for (const c of curves) {
    const last = c.checkpoints.at(-1)!;
    const first = c.checkpoints[0]!;
    console.log(
      `| ${c.seed} | ${c.tool ? 'tool' : 'no tool'} | ${pct(windowMean(c.trainHardCalls, 0, 3))} → ${pct(windowMean(c.trainHardCalls, steps - 3, steps))} | ${pct(windowMean(c.trainEasyCalls, 0, 3))} → ${pct(windowMean(c.trainEasyCalls, steps - 3, steps))} | ${pct(first.heldoutAccuracy)} → ${pct(last.heldoutAccuracy)} | ${pct(first.hardAccuracy)} → ${pct(last.hardAccuracy)} |`,
    );
  }
  const h = summary.heldoutAccuracy;
  const d = summary.hardAccuracy;
  console.log(
    `\nmean over seeds at the last step — held-out: tool ${pct(h.tool)} vs no tool ${pct(h.noTool)} (×${ratio(h.tool, h.noTool)}); 3-digit carries: ${pct(d.tool)} vs ${pct(d.noTool)} (×${ratio(d.tool, d.noTool)})`,
  );
  return 0;
}

if (import.meta.main) process.exitCode = await agentsBenchMain(process.argv.slice(2));
