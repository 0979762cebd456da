// bench/judge: judgements per second of the MATH-grade verifier (src/verify) against the
// numbers-only judge it replaced (judgeMathNumbersOnly), both measured in this process on the same
// pairs: the golden suite (MATH-style answers, --rounds passes) and --responses GSM8K-style
// responses made from datasets/gsm8k/test.jsonl, and the golden answers written out as MATH-style
// worked solutions on both sides (bench/judge-math-style.ts). Per-judgement latency gives
// p50/p99/max; a set of hostile inputs gives the worst case against the time limit. The verdict cache is off. Rates are
// given per wall second and per CPU second of this process (the one-core rate on a busy machine);
// the ratio to the baseline uses CPU time.
// Run: npx winnow bench judge [--responses 10000] [--rounds 10] [--json]
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseCommand } from '../src/cli/command-spec.ts';
import { formatTable } from '../src/cli/table.ts';
import { Rng } from '../src/core/rng.ts';
import { DEFAULT_LIMITS, verifyMath } from '../src/verify/index.ts';
import { judgeMathNumbersOnly } from '../src/verify/math-answer.ts';
import { mathStylePairs, type Pair } from './judge-math-style.ts';
import { JUDGE_BENCH_SPEC } from './judge-spec.ts';

const ROOT = join(import.meta.dirname, '..');
const GOLDEN = join(ROOT, 'tests', 'verify', 'fixtures', 'math-golden.jsonl');
const GSM8K = join(ROOT, 'datasets', 'gsm8k', 'test.jsonl');

interface Measured {
  suite: string;
  judge: string;
  judgements: number;
  seconds: number;
  perSecond: number;
  /** Judgements per second of this process's CPU time: the one-core rate, whatever else runs. */
  perCpuSecond: number;
  p50us: number;
  p99us: number;
  maxMs: number;
  accuracy: number;
  ratioToBaseline?: number;
}

type Judge = (response: string, gold: string) => boolean;
const verifier: Judge = (r, g) => verifyMath(r, g, { cache: null }).correct;
const numbersOnly: Judge = (r, g) => judgeMathNumbersOnly(r, g, { tolerance: 1e-6, percent: 'strip' }).match;

function readJsonl<T>(path: string): T[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as T);
}

/** Responses in the shapes models write: a worked answer ending in `####`, a boxed one, a wrong one. */
function gsm8kPairs(n: number, seed: number): Pair[] {
  const rows = readJsonl<{ question: string; answer: string }>(GSM8K);
  const rng = new Rng(seed);
  return Array.from({ length: n }, (_, i) => {
    const row = rows[i % rows.length]!;
    const final = row.answer.slice(row.answer.lastIndexOf('####') + 4).trim();
    const work = row.answer.slice(0, row.answer.lastIndexOf('####')).replace(/<<[^>]*>>/g, '');
    const shape = rng.int(4);
    if (shape === 0) return { gold: row.answer, response: `${work}#### ${final}`, verdict: true };
    if (shape === 1)
      return { gold: row.answer, response: `${work}So the answer is $\\boxed{${final}}$.`, verdict: true };
    if (shape === 2) return { gold: row.answer, response: `${work}The answer is ${final}.`, verdict: true };
    const wrong = String(Number(final.replace(/,/g, '')) + 1 + rng.int(9));
    return {
      gold: row.answer,
      response: `${work}Therefore the answer is \\boxed{${wrong}}.`,
      verdict: false,
    };
  });
}

function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

function measure(suite: string, name: string, pairs: readonly Pair[], judge: Judge): Measured {
  for (const p of pairs.slice(0, 500)) judge(p.response, p.gold); // warm-up: JIT, parser dictionaries
  const times = new Float64Array(pairs.length);
  let right = 0;
  const start = performance.now();
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < pairs.length; i++) {
    const p = pairs[i]!;
    const t0 = performance.now();
    const ok = judge(p.response, p.gold);
    times[i] = performance.now() - t0;
    if (ok === p.verdict) right++;
  }
  const seconds = (performance.now() - start) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  const sorted = [...times].sort((a, b) => a - b);
  return {
    suite,
    judge: name,
    judgements: pairs.length,
    seconds,
    perSecond: pairs.length / seconds,
    perCpuSecond: pairs.length / cpuSeconds,
    p50us: quantile(sorted, 0.5) * 1000,
    p99us: quantile(sorted, 0.99) * 1000,
    maxMs: sorted[sorted.length - 1]!,
    accuracy: right / pairs.length,
  };
}

/** Inputs built to be slow: the verifier must answer each within its time limit. */
function hostile(): Array<[string, string]> {
  return [
    [`${'x'.repeat(1_000_000)} \\boxed{5}`, '5'],
    [`\\boxed{${'{'.repeat(10_000)}5${'}'.repeat(10_000)}}`, '5'],
    ['\\boxed{(10^{10})!}', '5'],
    ['\\boxed{\\sum_{n=1}^{10^9} n}', '5'],
    ['\\boxed{\\lim_{x\\to 0}\\frac{\\sin x}{x}}', '1'],
    ['\\boxed{\\prod_{k=1}^{100000} k}', '5'],
    ['\\boxed{\\binom{100000}{50000}}', '5'],
    ['\\boxed{x^{x^{x^{x^{x^{x^{x}}}}}}}', 'x'],
    [`\\boxed{${Array.from({ length: 300 }, (_, i) => `x^{${i}}`).join('+')}}`, '(x+1)^{299}'],
    [`\\boxed{${'\\sqrt{'.repeat(60)}2${'}'.repeat(60)}}`, '2'],
    ['\\boxed{\\frac{\\sin^2 x + \\cos^2 x}{\\sec^2 x - \\tan^2 x}}', '1'],
  ];
}

export async function judgeBenchMain(argv: string[]): Promise<number> {
  const parsed = parseCommand(JUDGE_BENCH_SPEC, argv);
  if (!parsed) return 0;
  const { values } = parsed;
  const golden = readJsonl<Pair>(GOLDEN);
  const goldenRounds = Array.from({ length: values.rounds }, () => golden).flat();
  const gsm = gsm8kPairs(values.responses, values.seed);
  const solutions = Array.from({ length: values.rounds }, (_, r) =>
    mathStylePairs(golden, values.seed + r),
  ).flat();
  process.stderr.write(
    `judging ${goldenRounds.length.toLocaleString('en-US')} golden, ${solutions.length.toLocaleString('en-US')} MATH-style solution and ${gsm.length.toLocaleString('en-US')} GSM8K-style pairs with each judge…\n`,
  );
  const results: Measured[] = [];
  for (const [suite, pairs] of [
    ['golden (MATH-style)', goldenRounds],
    ['MATH-style solutions', solutions],
    ['GSM8K-style', gsm],
  ] as const) {
    const base = measure(suite, 'numbers-only (baseline)', pairs, numbersOnly);
    const mine = measure(suite, 'verifier', pairs, verifier);
    results.push(
      { ...mine, ratioToBaseline: mine.perCpuSecond / base.perCpuSecond },
      { ...base, ratioToBaseline: 1 },
    );
  }
  const worst = hostile().map(([response, gold]) => {
    const t0 = performance.now();
    const v = verifyMath(response, gold, { cache: null });
    return { ms: performance.now() - t0, reason: v.reason };
  });
  const worstMs = Math.max(...worst.map((w) => w.ms));
  const summary = {
    timeLimitMs: DEFAULT_LIMITS.timeLimitMs,
    hostileInputs: worst.length,
    worstMs,
    withinLimit: worstMs <= DEFAULT_LIMITS.timeLimitMs,
    hostileReasons: worst.map((w) => w.reason),
  };
  if (values.json) {
    process.stdout.write(`${JSON.stringify({ results, worstCase: summary }, null, 2)}\n`);
    return 0;
  }
  const rows = results.map((r) => [
    r.suite,
    r.judge,
    r.judgements,
    Math.round(r.perSecond),
    Math.round(r.perCpuSecond),
    Math.round(r.p50us),
    Math.round(r.p99us),
    r.maxMs,
    `${(r.accuracy * 100).toFixed(1)}%`,
    `${r.ratioToBaseline!.toFixed(2)}×`,
  ]);
  process.stdout.write(
    `${formatTable(['suite', 'judge', 'judgements', 'per second', 'per CPU s', 'p50 µs', 'p99 µs', 'max ms', 'right', 'vs baseline'], rows)}\n`,
  );
  process.stdout.write(
    `worst case on ${summary.hostileInputs} hostile inputs: ${worstMs.toFixed(1)} ms (time limit ${summary.timeLimitMs} ms${summary.withinLimit ? '' : ' — EXCEEDED'}); reasons: ${summary.hostileReasons.join(', ')}\n`,
  );
  return 0;
}
