// One protocol table from the runs of several `bench curriculum --json` outputs (e.g. the line-up at
// one commit and a new method run at another): the union of their methods and curves, read by the
// same evaluateComparison. Allowed only when every run present in two outputs (at least random on
// every seed, which sets the budgets) has the same curve in both, digit for digit; otherwise it stops
// and names the first run that differs.
//   node bench/learning-curriculum/join-runs.ts lineup.json new-method.json > joined.json
import { readFileSync } from 'node:fs';
import type { BudgetCurve } from '../protocol/curve.ts';
import { evaluateComparison, type MethodReport } from '../protocol/evaluate.ts';
import type { ProtocolMethod } from '../protocol/method.ts';
import { PUBLISHED_DEFAULTS } from '../protocol/tuning.ts';
import type { LearningCurve } from './learner.ts';
import { budgetCurve, type CurriculumResult } from './report.ts';

type Output = CurriculumResult & { protocol: { methods: MethodReport[] } };

/** The joined comparison; throws on outputs of other learners, seeds or settings, or differing runs. */
export function joinRuns(outputs: readonly Output[]) {
  const first = outputs[0]!;
  const same = (o: Output) =>
    o.learner === first.learner &&
    JSON.stringify(o.seeds) === JSON.stringify(first.seeds) &&
    JSON.stringify(o.settings) === JSON.stringify(first.settings);
  if (!outputs.every(same)) throw new Error('the outputs differ in learner, seeds or settings');
  const runs = new Map<string, LearningCurve>();
  for (const o of outputs)
    for (const c of o.curves) {
      const key = `${c.selector} seed ${c.seed}`;
      const seen = runs.get(key);
      if (seen && JSON.stringify(seen.points) !== JSON.stringify(c.points))
        throw new Error(`${key}: the outputs hold different curves; their runs cannot share one table`);
      runs.set(key, c);
    }
  const methods = new Map<string, ProtocolMethod>();
  for (const o of outputs)
    for (const m of o.protocol.methods)
      methods.set(m.method, {
        name: m.method,
        description: m.description,
        information: m.information.sources,
        tuning: m.tuning,
      });
  const curves: BudgetCurve[] = [...runs.values()].map(budgetCurve);
  const shared = [...runs.keys()].filter(
    (k) => outputs.filter((o) => o.curves.some((c) => `${c.selector} seed ${c.seed}` === k)).length > 1,
  );
  return {
    bench: 'curriculum',
    learner: first.learner,
    seeds: first.seeds,
    settings: first.settings,
    /** The runs found in more than one output, equal in each (what allows the join). */
    sharedRuns: shared,
    protocol: evaluateComparison({
      baseline: 'random',
      methods: [...methods.values()],
      curves,
      rankingTuning: PUBLISHED_DEFAULTS,
    }),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const files = process.argv.slice(2);
  if (files.length < 2) {
    process.stderr.write('usage: join-runs.ts A.json B.json … (bench curriculum --json outputs)\n');
    process.exit(2);
  }
  const joined = joinRuns(files.map((f) => JSON.parse(readFileSync(f, 'utf8')) as Output));
  process.stdout.write(`${JSON.stringify(joined, null, 2)}\n`);
}
