// The protocol's table (bench/protocol, evaluateComparison) from tune-headroom.ts output files: the
// seeds every method finished, random as the baseline, nothing charged (the methods read no column
// measured on the learner). Run: node bench/learning-curriculum/tune-headroom-report.ts FILE… [--json OUT]
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import {
  type BudgetCurve,
  evaluateComparison,
  formatProtocolTable,
  PUBLISHED_DEFAULTS,
} from '../protocol/index.ts';

interface TuneRow {
  seed: number;
  name: string;
  /** [rollouts, accuracy, updates] per evaluation. */
  points: [number, number, number?][];
}

const { values, positionals } = parseArgs({ allowPositionals: true, options: { json: { type: 'string' } } });
const curves: BudgetCurve[] = [];
for (const file of positionals)
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    const row = JSON.parse(line) as TuneRow;
    // A run repeated by another process is the same deterministic run: keep the first.
    if (curves.some((c) => c.method === row.name && c.seed === row.seed)) continue;
    curves.push({
      method: row.name,
      seed: row.seed,
      points: row.points.map(([rollouts, accuracy, updates]) => ({
        rollouts,
        accuracy,
        updates: updates ?? 0,
      })),
    });
  }
const names = ['random', ...new Set(curves.map((c) => c.method).filter((n) => n !== 'random'))];
const complete = (seed: number) => names.every((n) => curves.some((c) => c.method === n && c.seed === seed));
const seeds = new Set(curves.map((c) => c.seed).filter(complete));
const report = evaluateComparison({
  baseline: 'random',
  methods: names.map((name) => ({ name, description: name, information: [], tuning: PUBLISHED_DEFAULTS })),
  curves: curves.filter((c) => seeds.has(c.seed)),
  rankingTuning: PUBLISHED_DEFAULTS,
});
process.stdout.write(`${formatProtocolTable(report)}\n`);
if (values.json) writeFileSync(values.json, JSON.stringify(report, null, 2));
