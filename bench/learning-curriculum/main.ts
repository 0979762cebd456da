// bench curriculum: task selection on the real tiny learner over the graded curriculum pool.
// Every selector runs the same RL loop (learner.ts) from the warm start on each seed; random is the
// paired baseline. Target = random's final held-out accuracy on that seed.
// Run: npx winnow bench curriculum [--json] [--html FILE]  (or npx node bench/learning-curriculum/main.ts)
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseCommand } from '../../src/cli/command-spec.ts';
import { loadTaskFile } from '../../src/explorer/tasks/arithmetic-datasets.ts';
import { CURRICULUM_LEVELS } from '../../src/explorer/tasks/curriculum.ts';
import { createSelector } from '../../src/selectors/registry.ts';
import type { LearnerSim } from '../../src/selectors/sim/learner-sim.ts';
import { measureOverhead } from '../selection/zoo-overhead.ts';
import { curriculumHtml } from './html.ts';
import { buildView, type LearnerSettings, type LearningCurve, runLearner } from './learner.ts';
import { curriculumLineup } from './lineup.ts';
import { forSimulatedPool } from './overhead-config.ts';
import { startReport, strongReference } from './references.ts';
import { regimePool } from './regime.ts';
import { type SelectorSummary, textReport } from './report.ts';
import { CURRICULUM_ALL, CURRICULUM_BENCH_SPEC, type CurriculumSelectorName } from './spec.ts';
import { bootstrapRatio, commonTarget, type Interval, mean, stepsToTarget } from './stats.ts';

const DATA = resolve(import.meta.dirname, '..', '..', 'datasets', 'curriculum');

export async function curriculumBenchMain(argv: string[]): Promise<number> {
  const parsed = parseCommand(CURRICULUM_BENCH_SPEC, argv);
  if (!parsed) return 0;
  const v = parsed.values;
  const smoke = v.smoke === true;
  const seedCount = smoke && !parsed.given.has('seeds') ? 2 : v.seeds;
  const seeds = Array.from({ length: seedCount }, (_, i) => v['first-seed'] + i);
  const settings: LearnerSettings = smoke
    ? { steps: 4, trainGroups: 4, batchTasks: 8, repeat: 4, maxRounds: 2, every: 2, lr: v.lr, oracleEvery: 1 }
    : {
        steps: v.steps,
        trainGroups: v['train-groups'],
        batchTasks: v['batch-tasks'],
        repeat: v.repeat,
        maxRounds: v['max-rounds'],
        every: v.every,
        lr: v.lr,
        oracleEvery: 2,
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

  const [fullTrain, heldout] = await Promise.all([
    loadTaskFile(`${DATA}/train.jsonl`),
    loadTaskFile(`${DATA}/heldout.jsonl`),
  ]);
  const t0 = Date.now();
  const fullStart = await startReport(fullTrain, settings.repeat);
  const fullStrong = await strongReference(fullTrain, smoke ? 5 : 150);
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
    `pool: ${train.length} tasks; at the start ${(start.extremeShare * 100).toFixed(1)}% have a pass rate < 0.05 or > 0.95, ` +
      `${(start.noGradientShare * 100).toFixed(1)}% of ${settings.repeat}-rollout groups are expected to carry no gradient ` +
      `(references in ${((Date.now() - t0) / 1000).toFixed(0)} s)`,
  );
  const lineup = curriculumLineup(v['target-pass-rate'], v.rho);
  const inputs = { train, heldout, fullView: buildView(train, start.passRates, strong) };

  const curves: LearningCurve[] = [];
  for (const seed of seeds)
    for (const name of selectors) {
      const entry = lineup[name];
      const c = await runLearner(name, entry.recipe, entry.references, seed, inputs, settings);
      const last = c.points[c.points.length - 1]!;
      log(
        `seed ${seed} ${name}: final ${(last.accuracy * 100).toFixed(1)}%, effective ${(c.effective * 100).toFixed(0)}%, ${c.seconds.toFixed(0)} s`,
      );
      curves.push(c);
    }

  const levelNames = CURRICULUM_LEVELS.map((l) => l.name);
  const target = commonTarget(
    curves.filter((c) => c.selector === 'random'),
    v['target-share'],
  );
  const summaries: SelectorSummary[] = selectors.map((name, si) => {
    const steps: number[] = [];
    const baseSteps: number[] = [];
    const rolls: number[] = [];
    const baseRolls: number[] = [];
    const eff: number[] = [];
    const baseEff: number[] = [];
    const fin: number[] = [];
    const baseFin: number[] = [];
    let reached = 0;
    const byLevel: Record<string, number[]> = {};
    const mine = curves.filter((c) => c.selector === name);
    for (const seed of seeds) {
      const random = curves.find((c) => c.selector === 'random' && c.seed === seed)!;
      const c = mine.find((x) => x.seed === seed)!;
      const base = stepsToTarget(random, target);
      const hit = stepsToTarget(c, target);
      if (hit) reached++;
      // A run that never reaches the target counts with its whole budget (an optimistic bound).
      steps.push(hit?.step ?? settings.steps);
      rolls.push(hit?.rollouts ?? c.rollouts);
      baseSteps.push(base?.step ?? settings.steps);
      baseRolls.push(base?.rollouts ?? random.rollouts);
      eff.push(c.effective);
      baseEff.push(random.effective);
      const last = c.points[c.points.length - 1]!;
      fin.push(last.accuracy);
      baseFin.push(random.points[random.points.length - 1]!.accuracy);
      for (const l of levelNames) {
        byLevel[l] = [...(byLevel[l] ?? []), last.levels[l] ?? Number.NaN];
      }
    }
    return {
      selector: name,
      description: lineup[name].description,
      reached,
      runs: seeds.length,
      stepsRatio: bootstrapRatio(steps, baseSteps, 101 + si),
      rolloutsRatio: bootstrapRatio(rolls, baseRolls, 202 + si),
      effective: mean(eff),
      effectiveRatio: bootstrapRatio(eff, baseEff, 303 + si),
      finalAccuracy: mean(fin),
      finalRatio: bootstrapRatio(fin, baseFin, 404 + si),
      finalByLevel: Object.fromEntries(Object.entries(byLevel).map(([l, xs]) => [l, mean(xs)])),
      pickedByLevel: Object.fromEntries(
        levelNames.map((l) => [
          l,
          mine.reduce((a, c) => a + (c.picked[l] ?? 0), 0) /
            Math.max(
              1,
              mine.reduce((a, c) => a + Object.values(c.picked).reduce((x, y) => x + y, 0), 0),
            ),
        ]),
      ),
      distinct: mean(mine.map((c) => c.distinct)),
      seconds: mean(mine.map((c) => c.seconds)),
    };
  });
  // The head-to-head the issue asks for: the successor's steps against BOTS's, paired by seed.
  const pairs: Record<string, Interval> = {};
  const stepsOf = (name: string) =>
    seeds.map((seed) => {
      const c = curves.find((x) => x.selector === name && x.seed === seed)!;
      return stepsToTarget(c, target)?.step ?? settings.steps;
    });
  for (const [a, b] of [
    ['shared_ability', 'bots'],
    ['shared_ability_ref', 'bots_ref'],
  ] as const)
    if (selectors.includes(a) && selectors.includes(b))
      pairs[`${a}/${b}`] = bootstrapRatio(stepsOf(a), stepsOf(b), 505);

  // Selector time per step at scale, on the simulator's pool (the curriculum pool has 800 tasks).
  const overhead =
    v['overhead-tasks'] > 0
      ? measureOverhead(
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
          v['overhead-tasks'],
          { onProgress: log },
        )
      : [];
  const result = {
    bench: 'curriculum',
    seeds,
    settings,
    target,
    targetShare: v['target-share'],
    targetPassRate: v['target-pass-rate'],
    rho: v.rho,
    pool: {
      tasks: train.length,
      heldout: heldout.length,
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
    summary: summaries,
    pairs,
    overhead,
    curves,
  };
  if (v.html) writeFileSync(v.html, curriculumHtml(result));
  if (v.json) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  else process.stdout.write(`${textReport(result)}\n`);
  return 0;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.exitCode = await curriculumBenchMain(process.argv.slice(2));
}
