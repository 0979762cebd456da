// bench replay: the replay leaderboard on the real tiny learners under the shared protocol
// (bench/protocol). fifo (no replay) runs its fixed number of updates on each seed; its rollouts are
// that seed's budget, which every replay method spends too. Each step's fresh rows go through a real
// experience buffer whose sampler (the method) chooses what the update trains on; replayed rows get
// the method's off-policy correction. Ranked by AUC of held-out accuracy against rollouts; updates
// and the rows trained per update (the trainer's extra compute) are reported beside it.
// Run: npx winnow bench replay [--learner all] [--methods all] [--seeds 10] [--json]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type OptionValues, parseCommand } from '../../src/cli/command-spec.ts';
import { ConfigError } from '../../src/core/errors.ts';
import { loadTaskFile } from '../../src/explorer/tasks/arithmetic-datasets.ts';
import { taskViewFromTasks } from '../../src/selectors/task-view.ts';
import { CurveStore } from '../learning-curriculum/curve-store.ts';
import { type LearnerSettings, type LearningCurve, runLearner } from '../learning-curriculum/learner.ts';
import {
  BENCH_LEARNER_NAMES,
  BENCH_LEARNERS,
  type BenchLearnerName,
} from '../learning-curriculum/learners.ts';
import { budgetCurve } from '../learning-curriculum/report.ts';
import { evaluateComparison, type ProtocolReport } from '../protocol/evaluate.ts';
import { protocolMarkdown } from '../protocol/markdown.ts';
import { runComparison } from '../protocol/run.ts';
import { PUBLISHED_DEFAULTS } from '../protocol/tuning.ts';
import { ReplayBufferSource } from './buffer-source.ts';
import { chargesMarkdown, type ReplayCharge, replayCharges } from './charges.ts';
import { annealSchedule, protocolMethod, REPLAY_METHODS, type ReplayMethod, samplerFor } from './methods.ts';
import { REPLAY_BENCH_SPEC } from './spec.ts';

export interface ReplayLearnerResult {
  learner: string;
  seeds: number[];
  protocol: ProtocolReport;
  charges: ReplayCharge[];
  curves: LearningCurve[];
}

type Values = OptionValues<(typeof REPLAY_BENCH_SPEC)['options']>;

function settingsOf(v: Values): LearnerSettings {
  if (v.smoke)
    return {
      steps: 3,
      trainGroups: 2,
      batchTasks: 8,
      repeat: 4,
      maxRounds: 2,
      every: 1,
      lr: v.lr,
      oracleEvery: 1,
      maxSteps: 6,
    };
  return {
    steps: v.steps,
    trainGroups: v['train-groups'],
    batchTasks: v['batch-tasks'],
    repeat: v.repeat,
    maxRounds: v['max-rounds'],
    every: v.every,
    lr: v.lr,
    oracleEvery: 1,
    maxSteps: Math.max(v.steps, v['max-steps']),
  };
}

export async function replayBenchMain(argv: string[]): Promise<number> {
  const parsed = parseCommand(REPLAY_BENCH_SPEC, argv);
  if (!parsed) return 0;
  const v = parsed.values;
  const seedCount = v.smoke && !parsed.given.has('seeds') ? 1 : v.seeds;
  const seeds = Array.from({ length: seedCount }, (_, i) => v['first-seed'] + i);
  const names = v.methods as string[];
  const methods = REPLAY_METHODS.filter(
    (m) => m.name === 'fifo' || names.includes('all') || names.includes(m.name),
  );
  const learners = (v.learner as string[]).includes('all')
    ? BENCH_LEARNER_NAMES
    : (v.learner as BenchLearnerName[]);
  const settings = settingsOf(v);
  const log = (s: string) => {
    if (!v.quiet) process.stderr.write(`${s}\n`);
  };
  const results: ReplayLearnerResult[] = [];
  for (const name of learners) results.push(await runOnLearner(name, methods, seeds, settings, v, log));
  if (v.json)
    process.stdout.write(`${JSON.stringify({ bench: 'replay', settings, learners: results }, null, 2)}\n`);
  else
    for (const r of results)
      process.stdout.write(
        `## ${r.learner} (seeds ${r.seeds.join(',')})\n\n${protocolMarkdown(r.protocol)}\n\n${chargesMarkdown(r.charges)}\n\n`,
      );
  return 0;
}

async function runOnLearner(
  name: BenchLearnerName,
  methods: readonly ReplayMethod[],
  seeds: readonly number[],
  settings: LearnerSettings,
  v: Values,
  log: (s: string) => void,
): Promise<ReplayLearnerResult> {
  const learner = BENCH_LEARNERS[name];
  const [train, heldout] = await Promise.all([
    loadTaskFile(`${learner.data}/train.jsonl`),
    loadTaskFile(`${learner.data}/heldout.jsonl`),
  ]);
  const view = taskViewFromTasks(train);
  const inputs = { train, heldout, load: learner.load };
  const byName = new Map(methods.map((m) => [m.name, m] as const));
  const store = new CurveStore(v.curves, {
    learner: learner.name,
    settings,
    extra: {
      bench: 'replay',
      methods: methods.map((m) => ({
        sampler: samplerFor(m, settings.steps),
        request: m.request,
        trainer: m.trainer ?? null,
        ...(m.replayUpdates ? { replayUpdates: m.replayUpdates } : {}),
        ...(m.lrScale ? { lrScale: m.lrScale } : {}),
        ...(m.anneal ? { anneal: annealSchedule(m, settings.steps) } : {}),
      })),
    },
  });
  const reportSeeds = v['report-only']
    ? seeds.filter((s) => methods.every((m) => store.has(m.name, s)))
    : seeds;
  if (reportSeeds.length === 0)
    throw new ConfigError({
      path: 'curves',
      message: `${learner.name}: no seed has a stored run of every method in ${v.curves ?? '(no --curves file)'}`,
      hint: 'resume the comparison without --report-only',
    });
  const protocolMethods = methods.map(protocolMethod);
  const curves: LearningCurve[] = [];
  const budgetCurves = await runComparison({
    baseline: protocolMethods[0]!,
    methods: protocolMethods,
    seeds: reportSeeds,
    run: async (m, seed, budget) => {
      let c = store.get(m.name, seed, budget);
      if (!c) {
        if (v['report-only'])
          throw new ConfigError({
            path: 'curves',
            message: `${learner.name} ${m.name} seed ${seed}: no stored run with budget ${budget}`,
            hint: 'resume the comparison without --report-only',
          });
        c = await runWithBuffer(byName.get(m.name)!, seed, budget, { view, inputs, settings });
        store.put(m.name, seed, budget, c);
        const last = c.points[c.points.length - 1]!;
        log(
          `${learner.name} seed ${seed} ${m.name}: ${last.rollouts} rollouts, ${last.updates} updates, ${c.replayedSamples}/${c.trainedSamples} rows replayed, final ${(last.accuracy * 100).toFixed(1)}%, ${c.seconds.toFixed(0)} s`,
        );
      }
      curves.push(c);
      return budgetCurve(c);
    },
  });
  const protocol = evaluateComparison({
    baseline: 'fifo',
    methods: protocolMethods,
    curves: budgetCurves,
    rankingTuning: PUBLISHED_DEFAULTS,
  });
  const charges = replayCharges(
    methods.map((m) => m.name),
    curves,
    'fifo',
  );
  return { learner: learner.name, seeds: [...reportSeeds], protocol, charges, curves };
}

/** One run of the learner with its batches through a fresh on-disk buffer (removed afterwards). */
async function runWithBuffer(
  method: ReplayMethod,
  seed: number,
  budget: number | null,
  ctx: {
    view: ReturnType<typeof taskViewFromTasks>;
    inputs: Parameters<typeof runLearner>[4];
    settings: LearnerSettings;
  },
): Promise<LearningCurve> {
  const dir = mkdtempSync(join(tmpdir(), 'winnow-bench-replay-'));
  try {
    const source = await ReplayBufferSource.open(dir, method, seed, ctx.settings.steps, ctx.settings.lr);
    try {
      const recipe = { config: { type: 'random' } };
      return await runLearner(method.name, recipe, ctx.view, seed, ctx.inputs, ctx.settings, budget, source);
    } finally {
      await source.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.exitCode = await replayBenchMain(process.argv.slice(2));
}
