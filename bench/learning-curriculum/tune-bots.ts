// Tuning driver for BOTS on the curriculum pool (docs/selectors.md, "Tuning"): runs random and any
// BOTS parameter variants through the bench's own loop (runLearner, same settings and target) and
// prints the effective ratio, steps / rollouts to target against random (seeded bootstrap), final
// accuracy, distinct tasks, and where the picks went: tasks never observed before vs re-picks
// (with their mixed rate), and the next group's mean after each previous k/8 (the drift of tasks
// trained on). The references and random's curves are cached under the OS temp folder.
// With TUNE_DIAG=1 it also breaks the groups without a gradient down by level, by phase of training
// (updates 1–10, 11–20, 21+) and first pick vs re-pick, and prints BOTS's posterior mean at pick time
// by outcome (docs/selectors.md, "Where the last groups without a gradient came from").
// Run: npx node bench/learning-curriculum/tune-bots.ts 1,2,3,4,5 '[{"name":"x","refs":true,"params":{"rho":0.2}}]' [steps]
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { resolve } from 'node:path';
import { loadTaskFile } from '../../src/explorer/tasks/arithmetic-datasets.ts';
import { BotsSelector } from '../../src/selectors/bots.ts';
import { taskViewFromTasks } from '../../src/selectors/task-view.ts';
import { loadWarmStart } from '../../src/tiny/warm-start.ts';
import { buildView, type LearnerSettings, type LearningCurve, runLearner } from './learner.ts';
import { startReport, strongReference } from './references.ts';
import { bootstrapRatio, commonTarget, fmtInterval, mean, stepsToTarget } from './stats.ts';

const DATA = resolve(import.meta.dirname, '..', '..', 'datasets', 'curriculum');
const args = process.argv.slice(2);
const seeds = args[0]!.split(',').map(Number);
const variants: Array<{ name: string; refs: boolean; params: Record<string, unknown> }> = JSON.parse(
  args[1]!,
);
const steps = Number(args[2] ?? 40);
const settings: LearnerSettings = {
  steps,
  trainGroups: 16,
  batchTasks: 16,
  repeat: 8,
  maxRounds: 8,
  every: 4,
  lr: 0.003,
  oracleEvery: 2,
  maxSteps: steps,
};
const [train, heldout] = await Promise.all([
  loadTaskFile(`${DATA}/train.jsonl`),
  loadTaskFile(`${DATA}/heldout.jsonl`),
]);
const CACHE = resolve(tmpdir(), 'winnow-tune-bots');
mkdirSync(CACHE, { recursive: true });
const refFile = `${CACHE}/refs.json`;
let weak: Float64Array, strong: Float64Array;
if (existsSync(refFile)) {
  const j = JSON.parse(readFileSync(refFile, 'utf8'));
  weak = Float64Array.from(j.weak);
  strong = Float64Array.from(j.strong);
} else {
  weak = (await startReport(train, 8)).passRates;
  strong = await strongReference(train, 150);
  writeFileSync(refFile, JSON.stringify({ weak: [...weak], strong: [...strong] }));
}
const inputs = { train, heldout, load: loadWarmStart };
const fullView = buildView(train, weak, strong);
const plainView = taskViewFromTasks(train);
// diagnostics: picks of never-observed tasks and their mixed rate
const diag = { newPicks: 0, newMixed: 0, oldPicks: 0, oldMixed: 0, repick0: 0, repick1: 0 };
const drift: number[][] = Array.from({ length: 9 }, () => []);
const seenBefore = new Map<string, number>(); // last mean
// Groups without a gradient by level × phase of training (updates 1–10, 11–20, 21+) × new/re-pick.
const predicted = new Map<string, number[]>(); // posterior mean at pick time, by outcome
const levelOf = new Map(train.map((t) => [t.id, String(t.meta.domain)] as const));
const uniform = new Map<string, { n: number; all0: number; all1: number }>();
const phaseOf = (step: number | undefined) =>
  step === undefined ? '?' : step <= 10 ? 'a' : step <= 20 ? 'b' : 'c';
const countGroup = (key: string, m: number) => {
  const e = uniform.get(key) ?? { n: 0, all0: 0, all1: 0 };
  e.n++;
  if (m === 0) e.all0++;
  if (m === 1) e.all1++;
  uniform.set(key, e);
};
const origFeedback = BotsSelector.prototype.feedback;
BotsSelector.prototype.feedback = function (results, ctx) {
  const before = process.env['TUNE_DIAG'] ? this.predict(results.map((r) => r.taskId)) : null;
  for (const [ri, r] of results.entries()) {
    const m = r.rewards.reduce((a: number, b: number) => a + b, 0) / r.rewards.length;
    if (before) {
      const kind = m === 0 ? 'all-0' : m === 1 ? 'all-1' : 'mixed';
      const key = `${seenBefore.has(r.taskId) ? 'repick' : 'new'} ${kind}`;
      const e = predicted.get(key) ?? [];
      e.push(before[ri]!);
      predicted.set(key, e);
    }
    const mixed = m > 0 && m < 1;
    const prev = seenBefore.get(r.taskId);
    const lv = levelOf.get(r.taskId) ?? '?';
    const ph = phaseOf(ctx?.step);
    countGroup(`level ${lv}`, m);
    countGroup(`phase ${ph}`, m);
    countGroup(`${prev === undefined ? 'new' : 'repick'} ${ph}`, m);
    if (prev === undefined) {
      diag.newPicks++;
      if (mixed) diag.newMixed++;
    } else {
      drift[Math.round(prev * 8)]!.push(m);
      diag.oldPicks++;
      if (mixed) diag.oldMixed++;
      if (prev === 0) diag.repick0++;
      if (prev === 1) diag.repick1++;
    }
    seenBefore.set(r.taskId, m);
  }
  return origFeedback.call(this, results, ctx);
};
const cache = `${CACHE}/random-${steps}.json`;
const randoms: LearningCurve[] = existsSync(cache) ? JSON.parse(readFileSync(cache, 'utf8')) : [];
for (const seed of seeds)
  if (!randoms.find((c) => c.seed === seed && c.points.length === Math.ceil(steps / 4) + 1)) {
    randoms.push(
      await runLearner('random', { config: { type: 'random' } }, plainView, seed, inputs, settings),
    );
    writeFileSync(cache, JSON.stringify(randoms));
  }
const rnd = seeds.map(
  (s) => randoms.find((c) => c.seed === s && c.points.length === Math.ceil(steps / 4) + 1)!,
);
const target = commonTarget(rnd, 0.5);
console.log(
  `random: eff ${mean(rnd.map((c) => c.effective)).toFixed(3)} final ${mean(rnd.map((c) => c.points.at(-1)!.accuracy)).toFixed(3)} target ${target.toFixed(3)}`,
);
for (const v of variants) {
  Object.assign(diag, { newPicks: 0, newMixed: 0, oldPicks: 0, oldMixed: 0, repick0: 0, repick1: 0 });
  const cs: LearningCurve[] = [];
  for (const seed of seeds) {
    seenBefore.clear();
    cs.push(
      await runLearner(
        v.name,
        { config: { type: 'bots', params: { shortlist: 0, updatePer: 'step', ...v.params } } },
        v.refs ? fullView : plainView,
        seed,
        inputs,
        settings,
      ),
    );
  }
  console.log(
    drift
      .map(
        (xs, i) =>
          `${i}/8: n ${xs.length} now ${mean(xs).toFixed(2)} mixed ${(xs.filter((x) => x > 0 && x < 1).length / Math.max(1, xs.length)).toFixed(2)}`,
      )
      .join('\n'),
  );
  for (const xs of drift) xs.length = 0;
  if (process.env['TUNE_DIAG'])
    for (const [k, e] of [...uniform.entries()].sort())
      console.log(
        `  ${k.padEnd(20)} groups ${String(e.n).padStart(5)} all-0 ${String(e.all0).padStart(5)} all-1 ${String(e.all1).padStart(5)} mixed ${((e.n - e.all0 - e.all1) / e.n).toFixed(2)}`,
      );
  uniform.clear();
  for (const [k, xs] of [...predicted.entries()].sort()) {
    const q = [...xs].sort((a, b) => a - b);
    const at = (f: number) => q[Math.min(q.length - 1, Math.floor(f * q.length))]!.toFixed(2);
    console.log(
      `  predicted ${k.padEnd(14)} n ${q.length} mean ${mean(q).toFixed(3)} p10 ${at(0.1)} p50 ${at(0.5)} p90 ${at(0.9)}`,
    );
  }
  predicted.clear();
  const st = (c: LearningCurve) => stepsToTarget(c, target);
  const stepsR = bootstrapRatio(
    cs.map((c) => st(c)?.step ?? steps),
    rnd.map((c) => st(c)?.step ?? steps),
    1,
  );
  const rollR = bootstrapRatio(
    cs.map((c) => st(c)?.rollouts ?? c.rollouts),
    rnd.map((c) => st(c)?.rollouts ?? c.rollouts),
    2,
  );
  console.log(
    `${v.name.padEnd(28)} eff ${mean(cs.map((c) => c.effective)).toFixed(3)} [${cs.map((c) => c.effective.toFixed(2)).join(' ')}] steps ${fmtInterval(stepsR)} rolls ${fmtInterval(rollR)} final ${mean(cs.map((c) => c.points.at(-1)!.accuracy)).toFixed(3)} distinct ${mean(cs.map((c) => c.distinct)).toFixed(0)} | new ${diag.newPicks} (${(diag.newMixed / diag.newPicks).toFixed(2)} mixed) old ${diag.oldPicks} (${(diag.oldMixed / Math.max(1, diag.oldPicks)).toFixed(2)}) repick-after-0 ${diag.repick0} after-1 ${diag.repick1}`,
  );
}
