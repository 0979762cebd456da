import { z } from 'zod';
import { ConfigError } from '../../core/errors.ts';
import { taskContentId } from '../../core/ids.ts';
import { Rng } from '../../core/rng.ts';
import type { Task } from '../../core/task.ts';

/**
 * Seeded arithmetic problems with graded difficulty, for running the whole RL loop on a laptop
 * with the tiny policy. Prompt `"37+48="`, answer `"85"`. Every result is a non-negative
 * integer; expressions are evaluated left to right (only + and − are chained, so that is also
 * the usual precedence).
 */

export type ArithmeticOp = '+' | '-' | '*';

/** A family of problems: operand digit counts (first operand first) and the operators allowed. */
export interface ArithmeticDomain {
  name: string;
  /** Digits of each operand; its length is the operand count. */
  digits: readonly number[];
  ops: readonly ArithmeticOp[];
}

/** The built-in domains, roughly from easy to hard. `meta.domain` of each task names one. */
export const ARITHMETIC_DOMAINS: readonly ArithmeticDomain[] = [
  { name: 'add1', digits: [1, 1], ops: ['+'] },
  { name: 'sub1', digits: [1, 1], ops: ['-'] },
  { name: 'mul1', digits: [1, 1], ops: ['*'] },
  { name: 'add21', digits: [2, 1], ops: ['+'] },
  { name: 'sub21', digits: [2, 1], ops: ['-'] },
  { name: 'add2', digits: [2, 2], ops: ['+'] },
  { name: 'sub2', digits: [2, 2], ops: ['-'] },
  { name: 'addsub111', digits: [1, 1, 1], ops: ['+', '-'] },
  { name: 'mul21', digits: [2, 1], ops: ['*'] },
  { name: 'add3', digits: [3, 3], ops: ['+'] },
  { name: 'sub3', digits: [3, 3], ops: ['-'] },
  { name: 'addsub222', digits: [2, 2, 2], ops: ['+', '-'] },
];

export function arithmeticDomain(name: string, path = 'domains'): ArithmeticDomain {
  const d = ARITHMETIC_DOMAINS.find((x) => x.name === name);
  if (d === undefined) {
    throw new ConfigError({
      path,
      message: `unknown arithmetic domain '${name}'`,
      hint: `known: ${ARITHMETIC_DOMAINS.map((x) => x.name).join(', ')}`,
    });
  }
  return d;
}

/** Carries of a + b (a, b ≥ 0): the number of columns that carry a 1 into the next. */
export function additionCarries(a: number, b: number): number {
  let carries = 0;
  let carry = 0;
  while (a > 0 || b > 0) {
    const s = (a % 10) + (b % 10) + carry;
    carry = s >= 10 ? 1 : 0;
    carries += carry;
    a = Math.floor(a / 10);
    b = Math.floor(b / 10);
  }
  return carries;
}

/** Borrows of a − b for a ≥ b ≥ 0: the number of columns that borrow from the next. */
export function subtractionBorrows(a: number, b: number): number {
  let borrows = 0;
  let borrow = 0;
  while (a > 0 || b > 0) {
    const d = (a % 10) - (b % 10) - borrow;
    borrow = d < 0 ? 1 : 0;
    borrows += borrow;
    a = Math.floor(a / 10);
    b = Math.floor(b / 10);
  }
  return borrows;
}

/** Carries of a × b with b one digit: the digit products that pass a non-zero carry on (0 for larger b: not used). */
export function multiplicationCarries(a: number, b: number): number {
  if (b > 9) return 0;
  let carries = 0;
  let carry = 0;
  while (a > 0) {
    const p = (a % 10) * b + carry;
    carry = Math.floor(p / 10);
    if (carry > 0) carries++;
    a = Math.floor(a / 10);
  }
  return carries;
}

/** a + b computed column by column with every carry dropped: 37+48 → 75, 95+17 → 2. */
export function carrylessSum(a: number, b: number): number {
  let out = 0;
  let place = 1;
  while (a > 0 || b > 0) {
    out += (((a % 10) + (b % 10)) % 10) * place;
    place *= 10;
    a = Math.floor(a / 10);
    b = Math.floor(b / 10);
  }
  return out;
}

/** a − b (a ≥ b) column by column with every borrow dropped: 52−38 → 24 (12−8=4, 5−3=2). */
export function borrowlessDifference(a: number, b: number): number {
  let out = 0;
  let place = 1;
  while (a > 0 || b > 0) {
    out += (((a % 10) - (b % 10) + 10) % 10) * place;
    place *= 10;
    a = Math.floor(a / 10);
    b = Math.floor(b / 10);
  }
  return out;
}

/**
 * The answer a sloppy pupil gives who forgets every carry and borrow in + and − (× stays exact),
 * evaluated left to right like the real one. Equal to the true answer when nothing carries; the
 * true answer too when the sloppy running value would fall below a number it must subtract.
 */
export function forgetfulAnswer(prompt: string): string {
  const parts = prompt.replace(/=$/, '').split(/([+\-*])/);
  let sloppy = Number(parts[0]);
  let exact = sloppy;
  let valid = true;
  for (let i = 1; i < parts.length; i += 2) {
    const b = Number(parts[i + 1]);
    const op = parts[i];
    if (op === '+') {
      sloppy = carrylessSum(sloppy, b);
      exact += b;
    } else if (op === '-') {
      if (sloppy < b) valid = false;
      else sloppy = borrowlessDifference(sloppy, b);
      exact -= b;
    } else {
      sloppy *= b;
      exact *= b;
    }
  }
  return String(valid ? sloppy : exact);
}

/**
 * Difficulty in [0, 1] from the features:
 *   0.3·(digits − 1)/2 + 0.2·(operands − 2) + 0.3·min(carries, 3)/3 + 0.2·[has ×]
 * (digits = most digits of any operand, at most 3; operands 2 or 3). Each term is capped so
 * the sum never leaves [0, 1].
 */
export function arithmeticDifficulty(f: {
  digits: number;
  operands: number;
  carries: number;
  mul: number;
}): number {
  const clamp = (x: number) => Math.min(1, Math.max(0, x));
  const d =
    0.3 * clamp((f.digits - 1) / 2) +
    0.2 * clamp(f.operands - 2) +
    0.3 * clamp(Math.min(f.carries, 3) / 3) +
    0.2 * clamp(f.mul);
  return Math.round(d * 1e6) / 1e6;
}

export interface ArithmeticProblem {
  prompt: string;
  answer: string;
  domain: string;
  features: { digits: number; operands: number; carries: number; mul: number; difficulty: number };
}

function drawOperand(digits: number, rng: Rng, forMul: boolean): number {
  if (digits === 1) return forMul ? 2 + rng.int(8) : rng.int(10);
  const lo = 10 ** (digits - 1);
  return lo + rng.int(9 * lo);
}

/**
 * One problem of `domain`, or undefined when the draw is rejected (a negative intermediate or
 * result); callers simply draw again.
 */
export function drawProblem(domain: ArithmeticDomain, rng: Rng): ArithmeticProblem | undefined {
  const isMul = domain.ops.includes('*');
  const operands = domain.digits.map((d) => drawOperand(d, rng, isMul));
  const ops: ArithmeticOp[] = [];
  for (let i = 1; i < operands.length; i++) ops.push(domain.ops[rng.int(domain.ops.length)]!);
  let value = operands[0]!;
  let carries = 0;
  for (let i = 1; i < operands.length; i++) {
    const b = operands[i]!;
    const op = ops[i - 1]!;
    if (op === '+') {
      carries += additionCarries(value, b);
      value += b;
    } else if (op === '-') {
      if (b > value) return undefined;
      carries += subtractionBorrows(value, b);
      value -= b;
    } else {
      carries += multiplicationCarries(value, b);
      value *= b;
    }
  }
  let prompt = String(operands[0]);
  for (let i = 1; i < operands.length; i++) prompt += `${ops[i - 1]}${operands[i]}`;
  prompt += '=';
  const digits = Math.max(...domain.digits);
  const mul = isMul ? 1 : 0;
  const features = {
    digits,
    operands: operands.length,
    carries,
    mul,
    difficulty: arithmeticDifficulty({ digits, operands: operands.length, carries, mul }),
  };
  return { prompt, answer: String(value), domain: domain.name, features };
}

export const ArithmeticOptionsSchema = z.object({
  seed: z.number().int(),
  /** Tasks per domain (a domain with fewer distinct problems left yields what it has). */
  perDomain: z.number().int().nonnegative(),
  /** Domain names; default all built-in domains. */
  domains: z.array(z.string()).optional(),
  taskset: z.string().min(1).default('arithmetic'),
  /** Prompts that must not be produced (e.g. the held-out set when making the training set). */
  exclude: z.custom<ReadonlySet<string>>((v) => v instanceof Set).optional(),
});
export type ArithmeticOptions = z.input<typeof ArithmeticOptionsSchema>;

/** Draws without a new distinct problem before a domain counts as exhausted. */
const MAX_MISSES = 2000;

/**
 * Distinct arithmetic tasks, `perDomain` from each domain in the listed order, deterministic in
 * the seed. Task ids are content hashes of prompt + answer, so the same problem has the same id
 * in every file. Features: digits, operands, carries, mul, difficulty; meta: { domain }.
 */
export function generateArithmeticTasks(options: ArithmeticOptions): Task[] {
  const parsed = ArithmeticOptionsSchema.safeParse(options);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError({ path: `arithmetic.${issue.path.join('.')}`, message: issue.message });
  }
  const o = parsed.data;
  const domains = (o.domains ?? ARITHMETIC_DOMAINS.map((d) => d.name)).map((n, i) =>
    arithmeticDomain(n, `arithmetic.domains[${i}]`),
  );
  const seen = new Set<string>(o.exclude ?? []);
  const tasks: Task[] = [];
  for (const domain of domains) {
    const rng = new Rng(`arithmetic:${o.seed}:${domain.name}`);
    let made = 0;
    let misses = 0;
    while (made < o.perDomain && misses < MAX_MISSES) {
      const p = drawProblem(domain, rng);
      if (p === undefined || seen.has(p.prompt)) {
        misses++;
        continue;
      }
      misses = 0;
      seen.add(p.prompt);
      made++;
      tasks.push({
        id: taskContentId({ prompt: p.prompt, answer: p.answer }),
        taskset: o.taskset,
        prompt: p.prompt,
        answer: p.answer,
        features: { ...p.features },
        meta: { domain: p.domain },
      });
    }
  }
  return tasks;
}
