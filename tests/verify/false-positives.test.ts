import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { verifyMath } from '../../src/verify/index.ts';

/**
 * Wrong answers a policy could learn to give (issue 36, point 2): huge numbers passed for ∞,
 * integers above 2^53 compared as floats, mixed numbers read as products, a tolerance wider than
 * the gold's stated digits, a digit inside a word; and for the forms read since: `\pm` answers
 * (the engine read `2 \pm \sqrt2` as a measurement 2 ± √2 and passed it for `2 \pm \sqrt3`: 5 of
 * these 9 scored 1 before), ratios and several labelled solutions; and guards on the readings
 * added after (function and angle labels, whole-number sampling, inequalities joined by "or" —
 * where "x<2 and x>5" read as a union scored 1 until "and" between inequalities stayed a
 * conjunction). Every one must score 0.
 */

interface Case {
  id: string;
  class: string;
  gold: string;
  response: string;
  why: string;
}

const read = <T>(name: string): T[] =>
  readFileSync(join(import.meta.dirname, 'fixtures', name), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as T);

const FALSE_POSITIVES = read<Case>('math-false-positives.jsonl');
const GOLDEN = [
  ...read<{ gold: string }>('math-golden.jsonl'),
  ...read<{ gold: string }>('math-golden-extraction.jsonl'),
];

describe('false-positive suite', () => {
  it('has at least 60 wrong answers across the eleven classes', () => {
    expect(FALSE_POSITIVES.length).toBeGreaterThanOrEqual(103);
    expect(new Set(FALSE_POSITIVES.map((c) => c.id)).size).toBe(FALSE_POSITIVES.length);
    expect([...new Set(FALSE_POSITIVES.map((c) => c.class))].sort()).toEqual([
      'big_integer',
      'digit_in_word',
      'huge_not_infinity',
      'inequality_union',
      'label',
      'labelled_solutions',
      'mixed_number',
      'plus_minus',
      'precision',
      'ratio',
      'whole_numbers',
    ]);
  });

  it('scores every wrong answer 0, with a reason', () => {
    const passed = FALSE_POSITIVES.map((c) => ({
      id: c.id,
      v: verifyMath(c.response, c.gold, { cache: null }),
    }))
      .filter(({ v }) => v.correct)
      .map(({ id }) => id);
    expect(passed).toEqual([]);
  });
});

describe('the exact cases behind the classes', () => {
  const judge = (response: string, gold: string) => verifyMath(response, gold, { cache: null });
  it('accepts the right answer of each class', () => {
    expect(judge('\\boxed{\\frac94}', '2\\frac14').correct).toBe(true);
    expect(judge('\\boxed{-\\frac94}', '-2\\frac14').correct).toBe(true);
    expect(judge('\\boxed{2.25}', '2\\frac{1}{4}').correct).toBe(true);
    expect(judge('\\boxed{9007199254740993}', '2^{53}+1').correct).toBe(true);
    expect(judge('\\boxed{201 \\cdot 200!}', '201!').correct).toBe(true);
    expect(judge('\\boxed{10^{400}}', '100^{200}').correct).toBe(true);
    expect(judge('\\boxed{\\infty}', '\\infty').correct).toBe(true);
    expect(judge('\\boxed{123456.70}', '123456.7').correct).toBe(true);
    expect(judge('\\boxed{123456.74}', '123456.7').correct).toBe(true);
    expect(judge('\\boxed{1000000.0}', '1000000').correct).toBe(true);
    expect(judge('The answer is 2.', '2').correct).toBe(true);
  });

  it('says why a huge value is not infinity and why an overflow cannot be settled', () => {
    expect(judge('\\boxed{e^{1000}}', '\\infty')).toMatchObject({ correct: false, reason: 'not_equal' });
    expect(judge('\\boxed{e^{1001}}', 'e^{1000}')).toMatchObject({ correct: false, reason: 'unsure' });
  });

  it('a tolerance looser than the default replaces the stated-digits rule; the default passed explicitly does not', () => {
    expect(verifyMath('\\boxed{123456.8}', '123456.7', { tolerance: 1e-5, cache: null }).correct).toBe(true);
    expect(verifyMath('\\boxed{123456.8}', '123456.7', { tolerance: 1e-6, cache: null }).correct).toBe(false);
    expect(verifyMath('\\boxed{1000000.5}', '1000000', { tolerance: 1e-6, cache: null }).correct).toBe(false);
    expect(verifyMath('\\boxed{123456.8}', '123456.7', { cache: null }).correct).toBe(false);
  });
});

describe('every parseable gold equals itself', () => {
  const allGolds = [...new Set([...GOLDEN, ...FALSE_POSITIVES].map((c) => c.gold))];
  // Parseable: the gold's answer was read into a form (an unreadable one has none).
  const golds = allGolds.filter((g) => verifyMath(g, g, { cache: null }).form !== null);

  it('verify(x, x) = 1 for every gold of the three suites', () => {
    expect(golds.length).toBeGreaterThan(250);
    const failing = golds.filter((g) => !verifyMath(g, g, { cache: null }).correct);
    expect(failing).toEqual([]);
  });

  it('a gold that cannot be parsed (two ± in one part) still equals its own text, and nothing else', () => {
    const unparseable = allGolds.filter((g) => !golds.includes(g));
    expect(unparseable).toEqual(['1 \\pm 2 \\pm 3']);
    expect(verifyMath('\\boxed{1 \\pm 2 \\pm 3}', '1 \\pm 2 \\pm 3', { cache: null })).toMatchObject({
      correct: true,
      reason: 'equal',
    });
    const other = verifyMath('\\boxed{6, 2, 0, -4}', '1 \\pm 2 \\pm 3', { cache: null });
    expect(other).toMatchObject({ correct: false, reason: 'no_gold_answer' });
    expect(other.detail).toContain('ambiguous');
  });

  it('the gold boxed in a sentence is still the gold (property, any framing)', () => {
    const framings = ['', 'Therefore, ', 'After simplifying we get\n\n', 'So the result is '];
    fc.assert(
      fc.property(fc.constantFrom(...golds), fc.constantFrom(...framings), (gold, before) => {
        const answer = verifyMath(gold, gold, { cache: null }).expected ?? gold;
        return verifyMath(`${before}$\\boxed{${answer}}$`, gold, { cache: null }).correct;
      }),
      { seed: 36, numRuns: 400 },
    );
  });
});
