import { z } from 'zod';
import type { JsonValue, Task } from '../../core/task.ts';
import {
  equal,
  evaluateExpression,
  numbersProblem,
  parseDecimal,
  type Rational,
  show,
} from '../../verify/countdown-expression.ts';
import { defineReward } from './definition.ts';
import type { RewardResult } from './reward-fn.ts';

/** The task's numbers: a JSON array of numbers, or a string of numbers split by commas/spaces. */
function readNumbers(v: JsonValue | undefined): Rational[] | string {
  if (v === undefined || v === null) return 'is missing';
  const items = Array.isArray(v)
    ? v
    : typeof v === 'string'
      ? v.replace(/^\[|\]$/g, '').split(/[\s,]+/)
      : null;
  if (items === null) return `is a ${typeof v}, not a list of numbers`;
  const out: Rational[] = [];
  for (const item of items) {
    if (item === '') continue;
    const q = typeof item === 'number' || typeof item === 'string' ? parseDecimal(String(item)) : undefined;
    if (q === undefined) return `holds ${JSON.stringify(item)}, not a non-negative number`;
    out.push(q);
  }
  return out.length > 0 ? out : 'is empty';
}

function readTarget(task: Task, field: string): Rational | string {
  const raw = task.meta[field] ?? task.features[field] ?? task.answer;
  if (raw === undefined || raw === null)
    return `task has no target (meta.${field}, features.${field} or answer)`;
  const text = String(raw).trim();
  const negative = text.startsWith('-');
  const q = parseDecimal(negative ? text.slice(1) : text);
  if (q === undefined) return `target ${JSON.stringify(raw)} is not a number`;
  return negative ? { n: -q.n, d: q.d } : q;
}

/** The last `<tag>…</tag>` block's content, or null. */
function lastBlock(response: string, tag: string): string | null {
  const close = response.lastIndexOf(`</${tag}>`);
  if (close < 0) return null;
  const open = response.lastIndexOf(`<${tag}>`, close);
  return open < 0 ? null : response.slice(open + tag.length + 2, close);
}

/**
 * Countdown (the TinyZero task): reach the target with an arithmetic expression over the task's
 * numbers, each used at most once (`useAll: true`: exactly once). The expression is the last
 * `<answer>…</answer>` block (`answerTag: null`: the whole response); an `= …` tail is ignored.
 * It is parsed by our own recursive-descent parser and computed exactly (no eval). `score` when
 * it reaches the target, `formatScore` when it is a valid expression that does not (or misuses
 * the numbers), 0 when there is none. A task without numbers or target scores NaN.
 */
export const countdownReward = defineReward({
  name: 'countdown',
  description: 'Countdown: an expression over the given numbers (each at most once) that reaches the target',
  params: z
    .object({
      numbersField: z.string().min(1).default('nums').describe("the task's meta key holding the numbers"),
      targetField: z
        .string()
        .min(1)
        .default('target')
        .describe('meta or features key holding the target (else the task answer)'),
      answerTag: z.string().min(1).nullable().default('answer'),
      useAll: z.boolean().default(false),
      score: z.number().default(1),
      formatScore: z.number().default(0.1),
      maxChars: z.number().int().positive().default(512),
    })
    .strict(),
  create:
    (p) =>
    (ctx): RewardResult => {
      const numbers = readNumbers(ctx.task.meta[p.numbersField]);
      const target = readTarget(ctx.task, p.targetField);
      if (typeof numbers === 'string')
        return { reward: Number.NaN, info: { reason: `task meta.${p.numbersField} ${numbers}` } };
      if (typeof target === 'string') return { reward: Number.NaN, info: { reason: target } };
      const block = p.answerTag === null ? ctx.response : lastBlock(ctx.response, p.answerTag);
      if (block === null || block.trim() === '')
        return { reward: 0, info: { expression: null, reason: `no <${p.answerTag}> block` } };
      const expression = block.split('=')[0]!.trim();
      const parsed = evaluateExpression(expression, { maxChars: p.maxChars, maxDepth: 32 });
      if (!parsed.ok)
        return { reward: 0, info: { expression, reason: `not an expression: ${parsed.error}` } };
      const info = { expression: parsed.text, value: show(parsed.value), target: show(target) };
      const misuse = numbersProblem(parsed.numbers, numbers, p.useAll);
      if (misuse !== null) return { reward: p.formatScore, info: { ...info, reason: misuse } };
      if (!equal(parsed.value, target))
        return {
          reward: p.formatScore,
          info: { ...info, reason: `reaches ${show(parsed.value)}, not ${show(target)}` },
        };
      return { reward: p.score, info: { ...info, reason: 'reaches the target' } };
    },
});
