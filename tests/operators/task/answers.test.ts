import { describe, expect, it } from 'vitest';
import {
  extractBoxedAnswer,
  extractFinalAnswer,
  extractGsm8kAnswer,
  extractLastNumber,
} from '../../../src/operators/task/answer-extraction.ts';
import { extractAnswerOp } from '../../../src/operators/task/extract-answer.ts';
import { isNumericAnswer, requireAnswerOp } from '../../../src/operators/task/require-answer.ts';
import { gsm8k, ids, reasons, run, task } from './helpers.ts';

describe('answer extractors', () => {
  it('gsm8k: text after the last ####, commas removed', () => {
    expect(extractGsm8kAnswer('a\n#### 5\nmore\n#### 1,234 \n')).toBe('1234');
    expect(extractGsm8kAnswer('no marker 12')).toBeNull();
    expect(extractGsm8kAnswer('#### ')).toBeNull();
  });
  it('boxed: last \\boxed{} with balanced braces, the brace-less form, unclosed → null', () => {
    expect(extractBoxedAnswer('first \\boxed{1} then $\\boxed{\\frac{1}{2}}$')).toBe('\\frac{1}{2}');
    expect(extractBoxedAnswer('\\fbox{x^{2}} ok')).toBe('x^{2}');
    expect(extractBoxedAnswer('so $\\boxed 5$.')).toBe('5');
    expect(extractBoxedAnswer('\\boxed{\\{a\\}}')).toBe('\\{a\\}');
    expect(extractBoxedAnswer('\\boxed{1} and \\boxed{2')).toBeNull();
    expect(extractBoxedAnswer('nothing')).toBeNull();
  });
  it('last_number: integers, decimals, fractions; a minus only when it is a sign', () => {
    expect(extractLastNumber('16-3-4=9 so 9*2 = 18.')).toBe('18');
    expect(extractLastNumber('the result is -7.5')).toBe('-7.5');
    expect(extractLastNumber('x = 3-4')).toBe('4');
    expect(extractLastNumber('about 1,234,567 people, or 3/4 of them')).toBe('3/4');
    expect(extractLastNumber('It costs 1,234 dollars')).toBe('1234');
    expect(extractLastNumber('(-5)')).toBe('-5');
    expect(extractLastNumber('no digits')).toBeNull();
  });
  it('auto tries gsm8k, then boxed, then last_number', () => {
    expect(extractFinalAnswer('\\boxed{3}\n#### 4', 'auto')).toEqual({ value: '4', mode: 'gsm8k' });
    expect(extractFinalAnswer('\\boxed{3} or 5', 'auto')).toEqual({ value: '3', mode: 'boxed' });
    expect(extractFinalAnswer('maybe 5 or 6', 'auto')).toEqual({ value: '6', mode: 'last_number' });
    expect(extractFinalAnswer('none', 'auto')).toBeNull();
    expect(extractFinalAnswer('maybe 5', 'boxed')).toBeNull();
  });
  it('finds a numeric gsm8k answer in every row of the GSM8K test split', () => {
    const rows = gsm8k();
    const values = rows.map((r) => extractGsm8kAnswer(r.answer));
    expect(values.filter((v) => v !== null && isNumericAnswer(v))).toHaveLength(rows.length);
  });
});

describe('extract_answer', () => {
  const janet = task('j', 'How much?', { answer: 'She has 16-3-4=<<16-3-4=9>>9 left.\n#### 1,800' });
  it('writes the extracted value to answer and keeps the solution in meta.solution', async () => {
    const r = await run(extractAnswerOp, {}, [janet]);
    expect(r.rows).toEqual([{ ...janet, answer: '1800', meta: { solution: janet.answer! } }]);
    expect(r.metrics).toEqual({
      extracted_gsm8k: 1,
      extracted_boxed: 0,
      extracted_last_number: 0,
      extract_failed: 0,
    });
  });
  it('is idempotent: a second run keeps the first solution', async () => {
    const once = await run(extractAnswerOp, {}, [janet]);
    const twice = await run(extractAnswerOp, {}, once.rows);
    expect(twice.rows).toEqual(once.rows);
  });
  it('reads from meta and drops, clears or keeps tasks without an answer', async () => {
    const fromMeta = task('m', 'Q', { meta: { sol: 'so \\boxed{42}' } });
    const none = task('n', 'Q', { answer: 'no number here' });
    const missing = task('x', 'Q');
    const r = await run(extractAnswerOp, { from: 'meta.sol', mode: 'boxed' }, [fromMeta, none]);
    expect(r.rows).toEqual([
      { ...fromMeta, answer: '42', meta: { sol: 'so \\boxed{42}', solution: 'so \\boxed{42}' } },
    ]);
    expect(reasons(r)).toEqual([['n', 'no meta.sol to extract an answer from']]);
    const dropped = await run(extractAnswerOp, { mode: 'gsm8k' }, [none, missing]);
    expect(reasons(dropped)).toEqual([
      ['n', 'no answer found in answer (mode gsm8k)'],
      ['x', 'no answer to extract an answer from'],
    ]);
    const cleared = await run(extractAnswerOp, { mode: 'gsm8k', onFail: 'clear' }, [none]);
    expect(cleared.rows).toEqual([
      { id: 'n', taskset: 't', prompt: 'Q', features: {}, meta: { solution: 'no number here' } },
    ]);
    const kept = await run(extractAnswerOp, { mode: 'gsm8k', onFail: 'keep', solutionKey: null }, [none]);
    expect(kept.rows).toEqual([none]);
  });
});

describe('require_answer', () => {
  it('accepts plain numbers only when numeric is set', () => {
    for (const s of ['18', '-3', '+2.5', '.5', '1,234', '1,234.50', '3/4', ' 7 '])
      expect(isNumericAnswer(s)).toBe(true);
    for (const s of ['', '1,23', 'x', '1e5', '\\frac{1}{2}', '$5', '5%', '1.2.3'])
      expect(isNumericAnswer(s)).toBe(false);
  });
  it('drops missing, empty and (with numeric) non-numeric answers, saying which', async () => {
    const rows = [
      task('ok', 'q', { answer: '42' }),
      task('none', 'q'),
      task('empty', 'q', { answer: '  ' }),
      task('text', 'q', { answer: 'forty-two' }),
    ];
    const loose = await run(requireAnswerOp, {}, rows);
    expect(ids(loose.rows)).toEqual(['ok', 'text']);
    const strict = await run(requireAnswerOp, { numeric: true }, rows);
    expect(reasons(strict)).toEqual([
      ['none', 'missing answer'],
      ['empty', 'empty answer'],
      ['text', 'answer is not numeric: "forty-two"'],
    ]);
  });
});
