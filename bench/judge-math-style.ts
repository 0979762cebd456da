// MATH-style judgement pairs for bench/judge: both sides written as the MATH dataset writes a
// solution and as models answer it — a few sentences of worked reasoning with inline and display
// math, the final answer boxed at the end. The answers are the golden suite's (every form: numbers,
// fractions, expressions, intervals, sets, tuples, matrices, relations…), so the verdict of each
// pair is the golden suite's own; only pairs whose response is a single \boxed{…} are used (the
// wrapping then cannot change what is extracted).
import { Rng } from '../src/core/rng.ts';

export interface Pair {
  gold: string;
  response: string;
  verdict: boolean;
}

const OPENINGS = [
  'We begin by writing down what is given.',
  'Let us set up the problem carefully.',
  'First, note the constraints on the variables.',
  'To solve this, we simplify the expression step by step.',
];

const STEPS = [
  'Expanding, we get $x^2 - 5x + 6 = 0$, which factors as $(x-2)(x-3) = 0$.',
  'Since $a + b = 7$ and $ab = 12$, we have $a^2 + b^2 = (a+b)^2 - 2ab = 49 - 24 = 25$.',
  'By the Pythagorean theorem, $AC = \\sqrt{AB^2 + BC^2} = \\sqrt{9 + 16} = 5$.',
  'Multiplying both sides by $2$ gives \\[2y + 3 = 11,\\] so $y = 4$.',
  'The sum of the first $n$ positive integers is $\\frac{n(n+1)}{2}$, so for $n = 10$ it is $55$.',
  'Substituting $t = \\sin\\theta$, the equation becomes $2t^2 - t - 1 = 0$, i.e. $t = 1$ or $t = -\\frac{1}{2}$.',
  'There are $\\binom{5}{2} = 10$ ways to choose the pair, and $3! = 6$ ways to order the rest.',
  'Taking logarithms, $\\log_2 (8 \\cdot 4) = 3 + 2 = 5$.',
  'The discriminant is $b^2 - 4ac = 16 - 12 = 4 > 0$, so there are two real roots.',
  'Checking the endpoints, $f(0) = 1$ and $f(1) = e - 1$.',
];

const CLOSINGS = [
  (a: string) => `Therefore, the answer is $\\boxed{${a}}$.`,
  (a: string) => `Putting this together, we find $\\boxed{${a}}$.`,
  (a: string) => `Hence the final answer is \\[\\boxed{${a}}\\]`,
  (a: string) => `So we conclude that the answer is $\\boxed{${a}}$.`,
];

/** The content of a response that is exactly one `\boxed{…}` (balanced braces), else null. */
function singleBox(text: string): string | null {
  const t = text.trim();
  if (!t.startsWith('\\boxed{') || !t.endsWith('}')) return null;
  let depth = 0;
  for (let i = 6; i < t.length; i++) {
    if (t[i] === '{') depth++;
    else if (t[i] === '}' && --depth === 0) return i === t.length - 1 ? t.slice(7, -1) : null;
  }
  return null;
}

function solution(answer: string, rng: Rng): string {
  const steps = Array.from({ length: 2 + rng.int(4) }, () => STEPS[rng.int(STEPS.length)]!);
  return [OPENINGS[rng.int(OPENINGS.length)]!, ...steps, CLOSINGS[rng.int(CLOSINGS.length)]!(answer)].join(
    ' ',
  );
}

/** The golden pairs with a single boxed response, both sides written out as worked solutions. */
export function mathStylePairs(golden: readonly Pair[], seed: number): Pair[] {
  const rng = new Rng(seed);
  const out: Pair[] = [];
  for (const p of golden) {
    const answer = singleBox(p.response);
    if (answer === null || p.gold.includes('\\boxed') || p.gold.includes('####')) continue;
    out.push({ gold: solution(p.gold, rng), response: solution(answer, rng), verdict: p.verdict });
  }
  return out;
}
