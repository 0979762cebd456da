import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Task } from '../src/core/task.ts';

/**
 * GSM8K-sized rows for `bench ops`: row i is GSM8K test question i mod 1319 with its worked answer
 * (`… #### 72`, as the raw dataset holds it), its first number raised by ⌊i / 1319⌋ so that rows
 * are (almost all) distinct, as a real corpus is: dedup operators see 1M different texts, not 1,319
 * repeated. Pure function of i: every shard and every run generates the same rows.
 */
const GSM8K = join(import.meta.dirname, '..', 'datasets', 'gsm8k', 'test.jsonl');

let cache: { question: string; answer: string }[] | null = null;
function gsm8k(): { question: string; answer: string }[] {
  cache ??= readFileSync(GSM8K, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as { question: string; answer: string });
  return cache;
}

/** The question and worked answer of row `i`. */
export function opsRowText(i: number): { question: string; answer: string } {
  const rows = gsm8k();
  const base = rows[i % rows.length]!;
  const lap = Math.floor(i / rows.length);
  if (lap === 0) return base;
  let done = false;
  const question = base.question.replace(/\d+/, (n) => {
    done = true;
    return String(Number(n) + lap);
  });
  return { question: done ? question : `${question} (${lap})`, answer: base.answer };
}

/** Row `i` as a task, the way a pipeline holds it after reading a GSM8K file. */
export function opsTask(i: number): Task {
  const { question, answer } = opsRowText(i);
  return { id: `r${i}`, taskset: 'bench', prompt: question, answer, features: {}, meta: {} };
}

/** Mean characters per row (question + answer) over the first `n` rows, for the report. */
export function meanRowChars(n = 1319): number {
  let sum = 0;
  for (let i = 0; i < n; i++) {
    const r = opsRowText(i);
    sum += r.question.length + r.answer.length;
  }
  return sum / n;
}
