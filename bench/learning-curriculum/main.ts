// bench curriculum: task selection on a real tiny learner under the shared protocol (bench/protocol).
// random runs its fixed number of updates on each seed; its rollouts are that seed's budget, which
// every other method spends (less what the information it reads is charged). The ranking is by AUC
// of held-out accuracy against rollouts, among methods at their published defaults reading no oracle.
// Run: npx winnow bench curriculum [--learner curriculum|arithmetic] [--selectors all] [--json]
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type OptionValues, parseCommand } from '../../src/cli/command-spec.ts';
import { ConfigError } from '../../src/core/errors.ts';
import { loadTaskFile } from '../../src/explorer/tasks/arithmetic-datasets.ts';
import { createSelector } from '../../src/selectors/registry.ts';
import type { LearnerSim } from '../../src/selectors/sim/learner-sim.ts';
import { taskViewFromTasks } from '../../src/selectors/task-view.ts';
import type { SelectorTaskView } from '../../src/selectors/types.ts';
import { evaluateComparison } from '../protocol/evaluate.ts';
import type { ProtocolMethod } from '../protocol/method.ts';
import { runComparison } from '../protocol/run.ts';
import { PUBLISHED_DEFAULTS } from '../protocol/tuning.ts';
import { measureOverhead } from '../selection/zoo-overhead.ts';
import { CurveStore } from './curve-store.ts';
import { curriculumHtml } from './html.ts';
import { childOptions, runSeedRanges, seedRanges } from './jobs.ts';
import { buildView, type LearnerSettings, type LearningCurve, runLearner } from './learner.ts';
import { BENCH_LEARNERS, type BenchLearnerName } from './learners.ts';
import { type CurriculumEntry, curriculumLineup, entryInformation } from './lineup.ts';
import { forSimulatedPool } from './overhead-config.ts';
import { measuredPassRates, startReport, strongReference } from './references.ts';
import { regimePool } from './regime.ts';
import { budgetCurve, type CurriculumResult, type SelectorSummary, textReport } from './report.ts';
import { CURRICULUM_ALL, CURRICULUM_BENCH_SPEC, type CurriculumSelectorName } from './spec.ts';
import { mean } from './stats.ts';

export async function curriculumBenchMain(argv: string[]): Promise<number> {
  const parsed = parseCommand(CURRICULUM_BENCH_SPEC, argv);
  if (!parsed) return 0;
  const v = parsed.values;
  const smoke = v.smoke === true;
  const learner = BENCH_LEARNERS[v.learner as BenchLearnerName];
  const seedCount = smoke && !parsed.given.has('seeds') ? 2 : v.seeds;
  const seeds = Array.from({ length: seedCount }, (_, i) => v['first-seed'] + i);
  const settings: LearnerSettings = smoke
    ? {
        steps: 4,
        trainGroups: 4,
        batchTasks: 8,
        repeat: 4,
        maxRounds: 2,
        every: 2,
        lr: v.lr,
        oracleEvery: 1,
        maxSteps: 8,
      }
    : {
        steps: v.steps,
        trainGroups: v['train-groups'],
        batchTasks: v['batch-tasks'],
        repeat: v.repeat,
        maxRounds: v['max-rounds'],
        every: v.every,
        lr: v.lr,
        oracleEvery: 2,
        maxSteps: Math.max(v.steps, v['max-steps']),
      };
  const named = v.selectors as string[];
  let selectors = named.includes('all')
    ? [...new Set([...CURRICULUM_ALL, ...(named.filter((n) => n !== 'all') as CurriculumSelectorName[])])]
    : [...(named as CurriculumSelectorName[])];
  if (smoke && !parsed.given.has('selectors')) selectors = ['random', 'bots', 'shared_ability'];
  if (!selectors.includes('random')) selectors.unshift('random');
  const log = (s: string) => {
    if (!v.quiet) process.stderr.write(`${s}\n`);
  };
  // --jobs N: the seeds run in N child processes first (jobs.ts); below, every run is then found
  // in the --curves file (a scratch file when none is given) and only the report is made here.
  let curvesFile: string | undefined = v.curves;
  const scratch =
    v.jobs > 1 && !v['report-only'] && !curvesFile
      ? mkdtempSync(join(tmpdir(), 'winnow-curves-'))
      : undefined;
  try {
    if (v.jobs > 1 && !v['report-only'] && seeds.length > 1) {
      curvesFile ??= join(scratch!, 'curves.jsonl');
      await runSeedRanges({
        options: childOptions(v, parsed.given),
        ranges: seedRanges(seeds, v.jobs),
        curves: curvesFile,
        quiet: v.quiet === true,
        log,
      });
    }
    return await compare(v, { learner, seeds, settings, selectors, curvesFile, smoke, log });
  } finally {
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  }
}

type CurriculumValues = OptionValues<typeof CURRICULUM_BENCH_SPEC.options>;

/** The comparison itself: references, every run (or its stored copy), the protocol's report. */
async function compare(
  v: CurriculumValues,
  c: {
    learner: (typeof BENCH_LEARNERS)[BenchLearnerName];
    seeds: number[];
    settings: LearnerSettings;
    selectors: CurriculumSelectorName[];
    curvesFile: string | undefined;
    smoke: boolean;
    log: (line: string) => void;
  },
): Promise<number> {
  const { learner, seeds, settings, selectors, smoke, log } = c;
  const [fullTrain, heldout] = await Promise.all([
    loadTaskFile(`${learner.data}/train.jsonl`),
    loadTaskFile(`${learner.data}/heldout.jsonl`),
  ]);
  const t0 = Date.now();
  const loadStart = () => learner.load({ sampleSeed: 0 });
  const fullStart = await startReport(fullTrain, settings.repeat, loadStart);
  const fullStrong = await strongReference(fullTrain, smoke ? 5 : 150, loadStart);
  // --pool-unusable: a seeded sub-pool with that share of unusable tasks (regime.ts, issue #22).
  const regime =
    v['pool-unusable'] !== undefined
      ? regimePool(
          fullTrain,
          fullStart,
          fullStrong,
          { unusable: v['pool-unusable'], tasks: v['pool-tasks'] },
          settings.repeat,
        )
      : undefined;
  const { train, start, strong } = regime ?? { train: fullTrain, start: fullStart, strong: fullStrong };
  log(
    `${learner.name}: ${train.length} tasks; at the start ${(start.extremeShare * 100).toFixed(1)}% have a pass rate < 0.05 or > 0.95 ` +
      `(references in ${((Date.now() - t0) / 1000).toFixed(0)} s)`,
  );
  const lineup = curriculumLineup(v['target-pass-rate'], v.rho, learner.orderFeature);
  const k = v['reference-rollouts'];
  const plainView = taskViewFromTasks(train);
  const viewFor = (e: CurriculumEntry, seed: number): SelectorTaskView =>
    e.references === 'none'
      ? plainView
      : buildView(
          train,
          e.references === 'exact' ? start.passRates : measuredPassRates(start.passRates, k, seed),
          strong,
        );
  const methods: ProtocolMethod[] = selectors.map((name) => ({
    name,
    description: lineup[name].description,
    information: entryInformation(lineup[name], learner.poolColumns, train.length, k),
    tuning: lineup[name].tuning,
  }));
  const inputs = { train, heldout, load: learner.load };
  const store = new CurveStore(c.curvesFile, {
    learner: learner.name,
    settings,
    extra: {
      k,
      target: v['target-pass-rate'],
      rho: v.rho,
      regime: v['pool-unusable'] ?? null,
      tasks: train.length,
    },
  });
  // --report-only: the seeds every method has finished in the --curves file, nothing run.
  const reportSeeds = v['report-only'] ? seeds.filter((s) => selectors.every((n) => store.has(n, s))) : seeds;
  if (reportSeeds.length === 0)
    throw new Error(`no seed has a stored run of every method in ${v.curves ?? '(no --curves file)'}`);
  const curves: LearningCurve[] = [];
  const budgetCurves = await runComparison({
    baseline: methods[0]!,
    methods,
    seeds: reportSeeds,
    run: async (m, seed, budget) => {
      const e = lineup[m.name as CurriculumSelectorName];
      let c = store.get(m.name, seed, budget);
      if (!c) {
        if (v['report-only'])
          throw new ConfigError({
            path: 'curves',
            message: `${m.name} seed ${seed}: no stored run with budget ${budget}`,
            hint: 'resume the comparison without --report-only',
          });
        c = await runLearner(m.name, e.recipe, viewFor(e, seed), seed, inputs, settings, budget);
        store.put(m.name, seed, budget, c);
        const last = c.points[c.points.length - 1]!;
        log(
          `seed ${seed} ${m.name}: ${last.rollouts} rollouts, ${last.updates} updates, final ${(last.accuracy * 100).toFixed(1)}%, ${c.seconds.toFixed(0)} s`,
        );
      }
      curves.push(c);
      return budgetCurve(c);
    },
  });
  const protocol = evaluateComparison({
    baseline: 'random',
    methods,
    curves: budgetCurves,
    rankingTuning: PUBLISHED_DEFAULTS,
  });
  const levelNames = [...new Set(train.map((t) => String(t.meta.domain)))];
  const result: CurriculumResult & { bench: string } = {
    bench: 'curriculum',
    learner: learner.name,
    seeds: reportSeeds,
    settings,
    targetPassRate: v['target-pass-rate'],
    rho: v.rho,
    referenceRollouts: k,
    pool: {
      tasks: train.length,
      levels: levelNames,
      startExtremeShare: start.extremeShare,
      startNoGradientShare: start.noGradientShare,
      startPassRateByLevel: start.byLevel,
      ...(regime
        ? {
            regime: {
              unusable: v['pool-unusable'],
              tooEasy: regime.tooEasy,
              tooHard: regime.tooHard,
              usable: regime.usable,
            },
          }
        : {}),
    },
    protocol,
    summary: selectors.map((name) => summarise(name, lineup[name].description, curves, levelNames)),
    overhead: v['overhead-tasks'] > 0 ? overheadOf(selectors, lineup, v['overhead-tasks'], log) : [],
    curves,
  };
  if (v.html) writeFileSync(v.html, curriculumHtml(result));
  if (v.json) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  else process.stdout.write(`${textReport(result)}\n`);
  return 0;
}

/** What a method did over its runs (diagnostics beside the ranking). */
function summarise(
  name: string,
  description: string,
  curves: readonly LearningCurve[],
  levelNames: readonly string[],
): SelectorSummary {
  const mine = curves.filter((c) => c.selector === name);
  const last = (c: LearningCurve) => c.points[c.points.length - 1]!;
  const groups = mine.reduce((a, c) => a + Object.values(c.picked).reduce((x, y) => x + y, 0), 0);
  return {
    selector: name,
    description,
    runs: mine.length,
    effective: mean(mine.map((c) => c.effective)),
    finalAccuracy: mean(mine.map((c) => last(c).accuracy)),
    finalByLevel: Object.fromEntries(
      levelNames.map((l) => [l, mean(mine.map((c) => last(c).levels[l] ?? Number.NaN))]),
    ),
    pickedByLevel: Object.fromEntries(
      levelNames.map((l) => [l, mine.reduce((a, c) => a + (c.picked[l] ?? 0), 0) / Math.max(1, groups)]),
    ),
    distinct: mean(mine.map((c) => c.distinct)),
    updates: mean(mine.map((c) => last(c).updates)),
    seconds: mean(mine.map((c) => c.seconds)),
  };
}

/** Selector time per step at scale, on the simulator's pool (the real pools are small). */
function overheadOf(
  selectors: readonly CurriculumSelectorName[],
  lineup: Record<CurriculumSelectorName, CurriculumEntry>,
  tasks: number,
  log: (s: string) => void,
) {
  return measureOverhead(
    selectors.flatMap((name) => {
      const recipe = lineup[name].recipe;
      if (!('config' in recipe)) return [];
      const config = recipe.config;
      return [
        {
          name,
          description: lineup[name].description,
          ...(recipe.stages ? { stages: recipe.stages } : {}),
          build: (sim: LearnerSim, seed: number) =>
            createSelector(forSimulatedPool(config, sim.view()), sim.view(), seed),
        },
      ];
    }),
    tasks,
    { onProgress: log },
  );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.exitCode = await curriculumBenchMain(process.argv.slice(2));
}
