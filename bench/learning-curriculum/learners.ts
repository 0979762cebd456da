// The real learners `bench curriculum --learner` runs: the same tiny policy machinery (GRU policy,
// policy-gradient trainer, dynamic-sampling rounds) on two task families, so that a ranking that
// holds on one learner only shows as such.
// - curriculum: 800 additions in 12 graded levels (datasets/curriculum); most tasks solved or out
//   of reach at the start; the pool column `level` orders them.
// - arithmetic: the RFT demo's 2,394 tasks in 12 domains with subtraction, multiplication and three
//   operands (datasets/arithmetic), the warm start's own training mixture; no `level` column, the
//   pool's `difficulty` orders them.
import { resolve } from 'node:path';
import type { TinyPolicy } from '../../src/tiny/policy.ts';
import { loadWarmStart } from '../../src/tiny/warm-start.ts';

export interface BenchLearner {
  name: string;
  description: string;
  /** Folder with train.jsonl and heldout.jsonl. */
  data: string;
  /** The pool column the curriculum methods (AdaRFT, easy-to-hard) order tasks by. */
  orderFeature: string;
  /** The pool columns every method may read (free: they are the tasks' own metadata). */
  poolColumns: string[];
  load: (options: { sampleSeed: number }) => Promise<TinyPolicy>;
}

const DATASETS = resolve(import.meta.dirname, '..', '..', 'datasets');

export const BENCH_LEARNERS = {
  curriculum: {
    name: 'curriculum',
    description:
      'the tiny policy on 800 graded additions (datasets/curriculum), 64% solved or out of reach at the start',
    data: resolve(DATASETS, 'curriculum'),
    orderFeature: 'level',
    poolColumns: ['level', 'digits', 'operands', 'carries', 'difficulty', 'domain'],
    load: (o) => loadWarmStart(o),
  },
  arithmetic: {
    name: 'arithmetic',
    description:
      'the tiny policy on 2,394 mixed-operator tasks (datasets/arithmetic: +, −, ×, three operands), 63% solved or out of reach at the start',
    data: resolve(DATASETS, 'arithmetic'),
    orderFeature: 'difficulty',
    poolColumns: ['digits', 'operands', 'carries', 'mul', 'difficulty', 'domain'],
    load: (o) => loadWarmStart(o),
  },
} as const satisfies Record<string, BenchLearner>;

export type BenchLearnerName = keyof typeof BENCH_LEARNERS;
export const BENCH_LEARNER_NAMES = Object.keys(BENCH_LEARNERS) as BenchLearnerName[];
