import { ConfigError } from '../../src/core/errors.ts';
import { LearnerSim } from '../../src/selectors/sim/learner-sim.ts';
import { buildStages } from '../../src/selectors/stages/registry.ts';
import { type RolloutRequest, runStagedStep } from '../../src/selectors/stages/staged-step.ts';
import type { Selector } from '../../src/selectors/types.ts';
import { isProbingSelector } from '../../src/selectors/zoo/probe.ts';
import { bootstrapRatio, type Interval } from '../learning-curriculum/stats.ts';
import type { ProtocolReport } from '../protocol/evaluate.ts';
import { type AcceptanceCheck, acceptanceChecks } from './acceptance.ts';
import { ALL_NAMES, ALL_SELECTORS, type BenchSelector, LINEUP_NAMES } from './lineup.ts';
import {
  brier,
  calibrationError,
  effectiveTaskRatio,
  type RunTrace,
  type Stat,
  stat,
  stepsToTarget,
} from './metrics.ts';
import { cutTrace, OVERRUN, scenarioProtocol } from './protocol.ts';
import { SCENARIO_NAMES, SCENARIOS, type SelectionScenario } from './scenarios.ts';
import { measureOverhead, type StepOverhead } from './zoo-overhead.ts';

export interface SelectionBenchOptions {
  /** A scenario name, or 'all' (default: 'default'). */
  scenario?: string;
  /** Seeds per selector (default 5); seeds are 1..K. */
  seeds?: number;
  /** Selectors to run (default: all); random always runs, it is the reference. */
  selectors?: string[];
  /** Override the scenario's number of steps. */
  steps?: number;
  /** Seeds run are firstSeed…firstSeed+seeds−1 (default 1; tune on 1–5, report on 6–10). */
  firstSeed?: number;
  /** Also time each selector's step on a pool of this many tasks (0: not measured). */
  overheadTasks?: number;
  /** Accepted for the CLI (the caller decides how to print). */
  json?: boolean;
  /** Progress lines (e.g. to stderr). */
  onProgress?: (message: string) => void;
}

export interface SelectorSummary {
  selector: string;
  description: string;
  runs: number;
  /** Steps to reach random's final accuracy; runs that never reach it count as the run length. */
  stepsToTarget: Stat;
  /** The same, divided by random's steps to its own final accuracy (per seed). */
  relSteps: Stat;
  rolloutsToTarget: Stat;
  /** Rollouts to the target per seed, in the order of the scenario's seeds (for paired ratios between methods). */
  rolloutsPerSeed: number[];
  /** Paired ratios to random (Σ this / Σ random over the seeds) with 90% bootstrap intervals. */
  stepsRatio: Interval;
  rolloutsRatio: Interval;
  /** Runs that reached the target within the run. */
  reached: number;
  etr: Stat;
  etrEarly: Stat;
  /** Brier score of predicted pass rates on the selected batch (NaN: the selector predicts nothing). */
  brier: Stat;
  /** Mean squared error of predicted against true pass rates on the selected batch. */
  calibration: Stat;
  distinct: Stat;
  finalAccuracy: Stat;
}

export interface ScenarioResult {
  scenario: string;
  description: string;
  steps: number;
  batch: number;
  groupSize: number;
  tasks: number;
  seeds: number[];
  /** Random's final held-out accuracy (the target). */
  target: Stat;
  selectors: SelectorSummary[];
  /** Selectors left out of this scenario and why. */
  skipped: Array<{ selector: string; reason: string }>;
  /** Successor steps / BOTS steps per seed (when both ran). */
  successorOverBots: Stat | null;
  /** Mean held-out accuracy and cumulative rollouts over the seeds, at up to 50 steps, per selector. */
  curves: SelectionCurve[];
  /** The shared protocol's table (bench/protocol): AUC and budget accuracies, paired intervals, ranks. */
  protocol: ProtocolReport;
}

export interface SelectionCurve {
  selector: string;
  steps: number[];
  accuracy: number[];
  rollouts: number[];
}

function meanCurve(name: string, traces: readonly RunTrace[], steps: number): SelectionCurve {
  const every = Math.max(1, Math.ceil(steps / 50));
  const at: number[] = [];
  for (let t = every - 1; t < steps; t += every) at.push(t);
  if (at[at.length - 1] !== steps - 1) at.push(steps - 1);
  const avg = (f: (tr: RunTrace) => number) => traces.reduce((a, tr) => a + f(tr), 0) / traces.length;
  // A run cut at its budget holds its last value (the protocol's rule past a run's end).
  const at_ = (xs: Float64Array, t: number) => xs[Math.min(t, xs.length - 1)]!;
  return {
    selector: name,
    steps: at.map((t) => t + 1),
    accuracy: at.map((t) => avg((tr) => at_(tr.accuracy, t))),
    rollouts: at.map((t) => avg((tr) => at_(tr.rollouts, t))),
  };
}

export { type AcceptanceCheck, acceptanceChecks };

export interface SelectionBenchResult {
  scenarios: ScenarioResult[];
  acceptance: AcceptanceCheck[];
  /** Selector time per step at `overheadTasks` tasks (empty when not measured). */
  overhead: StepOverhead[];
  elapsedMs: number;
}

/** Run one selector on one simulated learner. */
export function runOne(
  entry: BenchSelector,
  scenario: SelectionScenario,
  seed: number,
  steps: number,
  /** Stop after the step at which this many rollouts are spent (cutTrace then trims the trace). */
  budget = Number.POSITIVE_INFINITY,
): RunTrace {
  const sim = new LearnerSim(scenario.sim, seed);
  const sel = entry.build(sim, seed);
  const B = scenario.batch;
  const trace: RunTrace = {
    selector: entry.name,
    seed,
    steps,
    batch: B,
    groupSize: sim.config.groupSize,
    startAccuracy: sim.heldOutAccuracy(),
    accuracy: new Float64Array(steps),
    mixed: new Int32Array(steps),
    groups: new Int32Array(steps),
    rollouts: new Float64Array(steps),
    brierSum: 0,
    brierCount: 0,
    calibSum: 0,
    calibCount: 0,
    distinct: 0,
    warnings: 0,
  };
  const seen = new Set<string>();
  if (entry.stages || isProbingSelector(sel)) return runStaged(entry, sim, sel, trace, seed, budget);
  let spent = 0;
  for (let t = 0; t < steps; t++) {
    const fresh = sim.arrivals(t);
    if (fresh) {
      if (!sel.addTasks)
        throw new ConfigError({ path: entry.name, message: 'selector cannot take new tasks' });
      sel.addTasks(fresh);
    }
    const ids = sel.select(B, { step: t });
    const predicted = sel.predict ? sel.predict(ids) : null;
    const truth = predicted ? ids.map((id) => sim.passRate(sim.indexOf(id))) : null;
    const results = sim.rollout(ids, t);
    if (predicted && truth) {
      results.forEach((r, i) => {
        const p = predicted[i]!;
        if (!Number.isFinite(p)) return;
        for (const x of r.rewards) {
          trace.brierSum += (p - x) * (p - x);
          trace.brierCount++;
        }
        trace.calibSum += (p - truth[i]!) * (p - truth[i]!);
        trace.calibCount++;
      });
    }
    const report = sel.feedback(results, { step: t });
    trace.warnings += report.warnings.length;
    trace.mixed[t] = sim.learn(results);
    trace.groups[t] = results.length;
    spent += results.length * sim.config.groupSize;
    trace.rollouts[t] = spent;
    for (const id of ids) seen.add(id);
    trace.accuracy[t] = sim.heldOutAccuracy();
    if (spent >= budget) break;
  }
  trace.distinct = seen.size;
  return trace;
}

/** A run through the staged step (pre-rollout stages, probes): every rollout counted. */
function runStaged(
  entry: BenchSelector,
  sim: LearnerSim,
  sel: Selector,
  trace: RunTrace,
  seed: number,
  budget: number,
): RunTrace {
  const stages = buildStages(entry.stages ?? [], seed, `${entry.name}.stages`);
  for (const s of stages) s.init(sim.view());
  const G = sim.config.groupSize;
  const seen = new Set<string>();
  let spent = 0;
  for (let t = 0; t < trace.steps; t++) {
    const fresh = sim.arrivals(t);
    if (fresh) throw new ConfigError({ path: entry.name, message: 'staged runs take no new tasks' });
    let call = 0;
    // The first request of a step draws what the plain path draws; later ones draw fresh samples.
    const rollout = (req: RolloutRequest) =>
      sim
        .rollout(req.ids, call++ === 0 ? t : t + 100_000 * call)
        .map((r) => r.rewards.slice(0, req.rollouts));
    const r = runStagedStep(sel, stages, { want: trace.batch, groupSize: G, step: t }, rollout);
    sim.learn(r.kept);
    trace.mixed[t] = r.mixedGroups;
    trace.groups[t] = r.fullGroups + r.screenedOut;
    spent += r.rollouts;
    trace.rollouts[t] = spent;
    for (const g of r.kept) seen.add(g.taskId);
    trace.accuracy[t] = sim.heldOutAccuracy();
    if (spent >= budget) break;
  }
  trace.distinct = seen.size;
  return trace;
}

function summarise(
  entry: BenchSelector,
  traces: RunTrace[],
  targets: Map<number, number>,
  randomSteps: Map<number, number>,
  randomRollouts: Map<number, number>,
  salt: number,
): SelectorSummary {
  const stt: number[] = [];
  const rel: number[] = [];
  const rollouts: number[] = [];
  let reached = 0;
  for (const tr of traces) {
    const s = stepsToTarget(tr.accuracy, targets.get(tr.seed)!);
    if (s !== null) reached++;
    const steps = s ?? tr.steps;
    stt.push(steps);
    rel.push(steps / randomSteps.get(tr.seed)!);
    rollouts.push(tr.rollouts[Math.min(tr.steps, steps) - 1]!);
  }
  const baseSteps = traces.map((tr) => randomSteps.get(tr.seed)!);
  const baseRollouts = traces.map((tr) => randomRollouts.get(tr.seed)!);
  const early = (tr: RunTrace) => effectiveTaskRatio(tr, 0, Math.max(1, Math.ceil(tr.steps / 10)));
  return {
    selector: entry.name,
    description: entry.description,
    runs: traces.length,
    stepsToTarget: stat(stt),
    relSteps: stat(rel),
    rolloutsToTarget: stat(rollouts),
    rolloutsPerSeed: rollouts,
    stepsRatio: bootstrapRatio(stt, baseSteps, 101 + salt),
    rolloutsRatio: bootstrapRatio(rollouts, baseRollouts, 202 + salt),
    reached,
    etr: stat(traces.map((t) => effectiveTaskRatio(t))),
    etrEarly: stat(traces.map(early)),
    brier: stat(traces.map(brier)),
    calibration: stat(traces.map(calibrationError)),
    distinct: stat(traces.map((t) => t.distinct)),
    finalAccuracy: stat(traces.map((t) => t.accuracy[t.steps - 1]!)),
  };
}

export function runScenario(
  scenario: SelectionScenario,
  opts: {
    seeds: number;
    firstSeed?: number;
    selectors: string[];
    steps?: number;
    onProgress?: (m: string) => void;
  },
): ScenarioResult {
  const steps = opts.steps ?? scenario.steps;
  const seeds = Array.from({ length: opts.seeds }, (_, i) => i + (opts.firstSeed ?? 1));
  const wanted = new Set(['random', ...opts.selectors]);
  const lineup = ALL_SELECTORS.filter((s) => wanted.has(s.name));
  const probe = new LearnerSim(scenario.sim, 1);
  const columns = new Set(Object.keys(probe.view().features));
  const skipped: Array<{ selector: string; reason: string }> = [];
  const traces = new Map<string, RunTrace[]>();
  for (const entry of lineup) {
    const missing = (entry.needs ?? []).filter((c) => !columns.has(c));
    if (missing.length > 0) {
      skipped.push({ selector: entry.name, reason: `needs column(s) ${missing.join(', ')}` });
      continue;
    }
    if (entry.fixedTasks && (scenario.sim.arrivals?.length ?? 0) > 0) {
      skipped.push({ selector: entry.name, reason: 'its method fixes the task set (no tasks mid-run)' });
      continue;
    }
    const t0 = performance.now();
    // Under the protocol every method spends random's rollouts of the seed (protocol.ts).
    const budgets = traces.get('random')?.map((tr) => tr.rollouts[tr.steps - 1]!);
    traces.set(
      entry.name,
      seeds.map((seed, i) =>
        budgets
          ? cutTrace(runOne(entry, scenario, seed, steps * OVERRUN), budgets[i]!)
          : runOne(entry, scenario, seed, steps),
      ),
    );
    opts.onProgress?.(
      `${scenario.name}: ${entry.name} × ${seeds.length} seeds in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
    );
  }
  const randomTraces = traces.get('random')!;
  const targets = new Map(randomTraces.map((t) => [t.seed, t.accuracy[t.steps - 1]!] as const));
  const randomSteps = new Map(
    randomTraces.map((t) => [t.seed, stepsToTarget(t.accuracy, targets.get(t.seed)!)!] as const),
  );
  const randomRollouts = new Map(
    randomTraces.map((t) => [t.seed, t.rollouts[randomSteps.get(t.seed)! - 1]!] as const),
  );
  const summaries = lineup
    .filter((e) => traces.has(e.name))
    .map((e, i) => summarise(e, traces.get(e.name)!, targets, randomSteps, randomRollouts, i));
  let successorOverBots: Stat | null = null;
  const sa = traces.get('shared_ability');
  const bots = traces.get('bots');
  if (sa && bots) {
    successorOverBots = stat(
      seeds.map((seed, i) => {
        const target = targets.get(seed)!;
        const a = stepsToTarget(sa[i]!.accuracy, target) ?? steps;
        const b = stepsToTarget(bots[i]!.accuracy, target) ?? steps;
        return a / b;
      }),
    );
  }
  return {
    scenario: scenario.name,
    description: scenario.description,
    steps,
    batch: scenario.batch,
    groupSize: probe.config.groupSize,
    tasks: probe.taskCount,
    seeds,
    target: stat([...targets.values()]),
    selectors: summaries,
    skipped,
    successorOverBots,
    curves: summaries.map((x) => meanCurve(x.selector, traces.get(x.selector)!, steps)),
    protocol: scenarioProtocol(
      lineup.filter((e) => traces.has(e.name)),
      traces,
    ),
  };
}

export async function runSelectionBench(opts: SelectionBenchOptions = {}): Promise<SelectionBenchResult> {
  const t0 = performance.now();
  const which = opts.scenario ?? 'default';
  const names = which === 'all' ? SCENARIO_NAMES : [which];
  for (const n of names)
    if (!SCENARIOS[n])
      throw new ConfigError({
        path: 'scenario',
        message: `unknown scenario '${n}'`,
        hint: `known: all, ${SCENARIO_NAMES.join(', ')}`,
      });
  const asked = opts.selectors ?? LINEUP_NAMES;
  const selectors = asked.includes('all')
    ? [...new Set([...ALL_NAMES, ...asked.filter((s) => s !== 'all')])]
    : asked;
  const known = ALL_SELECTORS.map((s) => s.name);
  for (const s of selectors)
    if (!known.includes(s))
      throw new ConfigError({
        path: 'selectors',
        message: `unknown selector '${s}'`,
        hint: `known: ${known.join(', ')}`,
      });
  const seeds = opts.seeds ?? 5;
  if (!Number.isInteger(seeds) || seeds < 1)
    throw new ConfigError({ path: 'seeds', message: `expected a positive integer, got ${seeds}` });
  const scenarios: ScenarioResult[] = [];
  for (const name of names) {
    scenarios.push(
      runScenario(SCENARIOS[name]!, {
        seeds,
        ...(opts.firstSeed !== undefined ? { firstSeed: opts.firstSeed } : {}),
        selectors,
        ...(opts.steps !== undefined ? { steps: opts.steps } : {}),
        ...(opts.onProgress ? { onProgress: opts.onProgress } : {}),
      }),
    );
    // Yield between scenarios so a caller's timers and signals get a turn.
    await new Promise((resolve) => setImmediate(resolve));
  }
  const overhead =
    (opts.overheadTasks ?? 0) > 0
      ? measureOverhead(
          ALL_SELECTORS.filter((e) => e.name === 'random' || selectors.includes(e.name)),
          opts.overheadTasks!,
          opts.onProgress ? { onProgress: opts.onProgress } : {},
        )
      : [];
  return { scenarios, acceptance: acceptanceChecks(scenarios), overhead, elapsedMs: performance.now() - t0 };
}
