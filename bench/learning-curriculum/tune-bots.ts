// Tuning driver for BOTS on the curriculum pool (docs/selectors.md, "Tuning"): runs random and any
// BOTS parameter variants through the bench's own loop (runLearner, same settings and target) and
// prints the effective ratio, steps / rollouts to target against random (seeded bootstrap), final
// accuracy, distinct tasks, and where the picks went: tasks never observed before vs re-picks
// (with their mixed rate), and the next group's mean after each previous k/8 (the drift of tasks
// trained on). The references and random's curves are cached under the OS temp folder.
// Run: npx node bench/learning-curriculum/tune-bots.ts 1,2,3,4,5 '[{"name":"x","refs":true,"params":{"rho":0.2}}]' [steps]
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { resolve } from 'node:path';
import { loadTaskFile } from '../../src/explorer/tasks/arithmetic-datasets.ts';
import { BotsSelector } from '../../src/selectors/bots.ts';
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
const inputs = { train, heldout, fullView: buildView(train, weak, strong) };
// diagnostics: picks of never-observed tasks and their mixed rate
const diag = { newPicks: 0, newMixed: 0, oldPicks: 0, oldMixed: 0, repick0: 0, repick1: 0 };
const drift: number[][] = Array.from({ length: 9 }, () => []);
const seenBefore = new Map<string, number>(); // last mean
const origFeedback = BotsSelector.prototype.feedback;
BotsSelector.prototype.feedback = function (results, ctx) {
  for (const r of results) {
    const m = r.rewards.reduce((a: number, b: number) => a + b, 0) / r.rewards.length;
    const mixed = m > 0 && m < 1;
    const prev = seenBefore.get(r.taskId);
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
    randoms.push(await runLearner('random', { config: { type: 'random' } }, false, seed, inputs, settings));
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
        v.refs,
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
