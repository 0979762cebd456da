import { describe, expect, it } from 'vitest';
import { TaskSchema } from '../../../src/core/task.ts';
import {
  extractAnswer,
  extractBoxed,
  judgeMath,
  mathReward,
  parseNumber,
  type RewardFn,
  referenceAnswer,
} from '../../../src/explorer/rewards/index.ts';

const opts = { tolerance: 1e-6, percent: 'strip' as const };
const task = (answer?: string) => TaskSchema.parse({ id: 't1', taskset: 'math', prompt: 'q', answer });

describe('extractAnswer', () => {
  const cases: Array<[string, string | null, string | null]> = [
    ['so the result is \\boxed{42}.', '42', 'boxed'],
    ['first \\boxed{1} then \\boxed{\\frac{3}{4}}', '\\frac{3}{4}', 'boxed'],
    ['\\boxed{\\text{(A)}}', '\\text{(A)}', 'boxed'],
    ['\\fbox{7}', '7', 'boxed'],
    ['\\boxed 5 is it', '5', 'boxed'],
    ['Natalia sold 48/2 = 24 clips.\n#### 72', '72', 'hashes'],
    ['#### 1,234\nsome trailing words', '1,234', 'hashes'],
    ['Thus, the answer is 18.', '18', 'phrase'],
    ['The answer is: $18.50. Next we…', '$18.50', 'phrase'],
    ['Final answer: **-3**', '**-3**', 'phrase'],
    ['I think the answer is 3. Wait, no. The answer is 4.', '4', 'phrase'],
    ['We have 3 apples and 5 pears, 8 in total', '8', 'last_number'],
    ['1,234 people and 1,2,3', '3', 'last_number'],
    ['half is 1/2', '1/2', 'last_number'],
    ['it is -\\frac{1}{2} roughly', '-\\frac{1}{2}', 'last_number'],
    ['no digits at all', null, null],
  ];
  for (const [text, answer, by] of cases) {
    it(`${JSON.stringify(text)} → ${answer}`, () => {
      const got = extractAnswer(text);
      expect(got === null ? null : got.answer).toBe(answer);
      expect(got === null ? null : got.by).toBe(by);
    });
  }

  it('extractBoxed handles nested braces and picks the last box', () => {
    expect(extractBoxed('\\boxed{\\frac{\\sqrt{2}}{2}} and \\boxed{x^{2}}')).toBe('x^{2}');
    expect(extractBoxed('\\boxed{unclosed')).toBeNull();
  });

  it('referenceAnswer reads GSM8K and boxed references', () => {
    expect(referenceAnswer('She has 5 + 3 = <<5+3=8>>8.\n#### 8')).toBe('8');
    expect(referenceAnswer('\\boxed{\\dfrac{1}{3}}')).toBe('\\dfrac{1}{3}');
    expect(referenceAnswer('  42 ')).toBe('42');
  });
});

describe('parseNumber', () => {
  const cases: Array<[string, number | null]> = [
    ['42', 42],
    ['-7', -7],
    ['+5', 5],
    ['3.14', 3.14],
    ['18.0', 18],
    ['18.', 18],
    ['.5', 0.5],
    ['1,234', 1234],
    ['1,234,567.5', 1234567.5],
    ['1{,}234', 1234],
    ['3/4', 0.75],
    ['-3/4', -0.75],
    ['\\frac{3}{4}', 0.75],
    ['\\dfrac{3}{4}', 0.75],
    ['\\tfrac{1}{2}', 0.5],
    ['-\\frac{1}{2}', -0.5],
    ['\\frac34', 0.75],
    ['$18', 18],
    ['\\$18.00', 18],
    ['€5', 5],
    ['25%', 25],
    ['25\\%', 25],
    ['x = 5', 5],
    ['90^\\circ', 90],
    ['18 dollars', 18],
    ['18 \\text{ dollars}', 18],
    ['\\text{18 cm}', 18],
    ['**12**', 12],
    ['1e3', 1000],
    ['\u22125', -5],
    ['x+1', null],
    ['3 apples and 4 pears', null],
    ['1,2,3', null],
    ['12,34', null],
    ['1/0', null],
    ['abc', null],
    ['', null],
  ];
  for (const [s, want] of cases)
    it(`${JSON.stringify(s)} → ${want}`, () => expect(parseNumber(s)).toBe(want));

  it("percent: 'fraction' divides by 100", () => {
    expect(parseNumber('25%', 'fraction')).toBe(0.25);
    expect(parseNumber('25', 'fraction')).toBe(25);
  });
});

describe('judgeMath equivalence', () => {
  const equal: Array<[string, string]> = [
    ['\\boxed{18}', '18'],
    ['The answer is 18.0', '18'],
    ['#### 1,234', '1234'],
    ['The answer is $18.', '18'],
    ['\\boxed{\\frac{3}{4}}', '0.75'],
    ['\\boxed{\\dfrac{3}{4}}', '3/4'],
    ['\\boxed{0.75}', '\\frac{3}{4}'],
    ['answer: +5', '5'],
    ['\\boxed{25\\%}', '25'],
    ['so she earns \\$1,000.00 in total', '1000'],
    ['It is 1/3 of the cake: \\boxed{\\frac{1}{3}}', '1/3'],
    ['#### 72', 'Natalia sold 48/2 = <<48/2=24>>24 clips in May.\n#### 72'],
    ['\\boxed{x^2+1}', 'x^{2}+1'.replace('{2}', '2')],
    ['\\boxed{\\left(1, 2\\right)}', '(1,2)'],
    ['The answer is (B).', '(B)'],
    ['the answer is 0.1 + 0.2 = 0.30000000000000004', '0.3'],
  ];
  for (const [response, reference] of equal)
    it(`${JSON.stringify(response)} = ${JSON.stringify(reference)}`, () => {
      const j = judgeMath(response, reference, opts);
      expect(j.reason).toMatch(/^equal/);
      expect(j.match).toBe(true);
    });

  const different: Array<[string, string]> = [
    ['\\boxed{18.5}', '18'],
    ['\\boxed{18}', '18.5'],
    ['The answer is 0.33', '1/3'],
    ['\\boxed{0.33}', '\\frac{1}{3}'],
    ['\\boxed{-18}', '18'],
    ['\\boxed{180}', '18'],
    ['#### 1,234', '1.234'],
    ['\\boxed{x+1}', '1'],
    ['The answer is (C).', '(B)'],
    ['no number here', '5'],
    ['\\boxed{3 apples and 4 pears}', '3'],
  ];
  for (const [response, reference] of different)
    it(`${JSON.stringify(response)} ≠ ${JSON.stringify(reference)}`, () => {
      expect(judgeMath(response, reference, opts).match).toBe(false);
    });

  it('tolerance widens numeric equality of non-integers; integers compare exactly', () => {
    expect(judgeMath('\\boxed{3.1416}', '3.14159265', { ...opts, tolerance: 1e-4 }).match).toBe(true);
    expect(judgeMath('\\boxed{3.1416}', '3.14159265', opts).match).toBe(false);
    // Changed with the MATH-grade verifier: a tolerance let 1000001 pass for 1000000 (a wrong answer).
    expect(judgeMath('\\boxed{1000001}', '1000000', opts).match).toBe(false);
  });

  it("percent 'fraction' makes 25% equal 0.25", () => {
    expect(judgeMath('\\boxed{25\\%}', '0.25', { ...opts, percent: 'fraction' }).match).toBe(true);
    expect(judgeMath('\\boxed{25\\%}', '0.25', opts).match).toBe(false);
  });
});

describe('math reward', () => {
  const fn = mathReward.create(mathReward.params.parse({}), { baseDir: '.', path: 'reward' }) as RewardFn;

  it('with its default params, refuses the false-positive classes (the tolerance param is the verifier default)', async () => {
    const score = async (response: string, answer: string) =>
      (await fn({ response, task: task(answer) })).reward;
    expect(await score('\\boxed{1000000.5}', '1000000')).toBe(0);
    expect(await score('\\boxed{123456.8}', '123456.7')).toBe(0);
    expect(await score('\\boxed{2^{53}+1}', '2^{53}')).toBe(0);
    expect(await score('\\boxed{10^{400}}', '\\infty')).toBe(0);
    expect(await score('\\boxed{\\frac12}', '2\\frac14')).toBe(0);
    expect(await score('\\boxed{\\frac94}', '2\\frac14')).toBe(1);
    const costly = await fn({ response: '\\boxed{(10^9)!}', task: task('5') });
    expect([costly.reward, costly.info?.reason]).toEqual([0, 'too_costly']);
  });

  it('scores 1/0 with info', async () => {
    expect(await fn({ response: 'so \\boxed{18}', task: task('18') })).toEqual({
      reward: 1,
      info: {
        extracted: '18',
        extracted_by: 'boxed',
        expected: '18',
        reason: 'equal',
        detail: '',
        form: 'scalar',
      },
    });
    expect(await fn({ response: 'The answer is 18.5', task: task('18') })).toEqual({
      reward: 0,
      info: {
        extracted: '18.5',
        extracted_by: 'phrase',
        expected: '18',
        reason: 'not_equal',
        detail: 'scalar vs scalar',
        form: 'scalar',
      },
    });
    // A short text is read whole as a text answer (gold and response alike), so it is compared.
    expect(await fn({ response: 'I give up', task: task('18') })).toEqual({
      reward: 0,
      info: {
        extracted: 'I give up',
        extracted_by: 'whole',
        expected: '18',
        reason: 'not_equal',
        detail: 'text vs scalar',
        form: 'scalar',
      },
    });
    expect(await fn({ response: 'I really cannot work this one out, sorry.', task: task('18') })).toEqual({
      reward: 0,
      info: {
        extracted: null,
        extracted_by: null,
        expected: '18',
        reason: 'no_answer',
        detail: 'no answer found in the response',
        form: 'scalar',
      },
    });
  });

  it('scores NaN when the task has no reference', async () => {
    const r = await fn({ response: '\\boxed{1}', task: task() });
    expect(r.reward).toBeNaN();
    expect(r.info).toEqual({
      extracted: null,
      extracted_by: null,
      expected: null,
      reason: 'no_reference',
      detail: 'task has no reference answer',
    });
  });

  it('rejects bad params', () => {
    expect(() => mathReward.params.parse({ tolerance: -1 })).toThrow();
    expect(() => mathReward.params.parse({ tol: 1 })).toThrow();
  });
});
