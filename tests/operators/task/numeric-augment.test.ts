import { describe, expect, it } from 'vitest';
import { taskContentId } from '../../../src/core/ids.ts';
import type { Rng } from '../../../src/core/rng.ts';
import { verifyAugmentedSolution } from '../../../src/operators/task/calculator-annotations.ts';
import { numericAugmentOp } from '../../../src/operators/task/numeric-augment.ts';
import { perturbValue, tryVariant } from '../../../src/operators/task/numeric-variants.ts';
import type { ProblemAnalysis } from '../../../src/operators/task/problem-analysis.ts';
import { analyzeProblem } from '../../../src/operators/task/problem-analysis.ts';
import { parseDecimal, rational, toDecimalString } from '../../../src/operators/task/rational.ts';
import { gsm8k, gsm8kTasks, run, task } from './helpers.ts';

const QUESTION =
  'Janet has 16 eggs. She eats 3 and bakes with 4. She sells the rest for $2 each. How much does she make?';
const SOLUTION = 'She has 16-3-4=<<16-3-4=9>>9 left.\nShe makes 9*2=<<9*2=18>>18.\n#### 18';
const janet = task('janet', QUESTION, { answer: '18', meta: { solution: SOLUTION } });

/** An Rng stand-in that always picks option `k` (clamped), to pin perturbations in golden tests. */
const pick = (k: number) => ({ int: (n: number) => Math.min(k, n - 1) }) as unknown as Rng;

function analysis(question: string, solution: string): ProblemAnalysis {
  const a = analyzeProblem(question, solution);
  if ('reason' in a) throw new Error(`${a.reason}: ${a.detail}`);
  return a;
}

describe('analysis of a worked solution', () => {
  it('traces every annotation literal to a question number, an earlier result or a constant', () => {
    const a = analysis(QUESTION, SOLUTION);
    expect(a.perturbable).toEqual(['16', '3', '4', '2']);
    expect(a.annotations.map((x) => x.sources)).toEqual([
      [
        { kind: 'input', key: '16' },
        { kind: 'input', key: '3' },
        { kind: 'input', key: '4' },
      ],
      [
        { kind: 'result', index: 0 },
        { kind: 'input', key: '2' },
      ],
    ]);
  });
  it('does not change a number that also serves as a constant ("half" of 2 bolts)', () => {
    const g = gsm8k()[1]!; // 2 bolts of blue fiber and half that much white: 2/2, then 2+1
    expect(analyzeProblem(g.question, g.answer)).toEqual({
      reason: 'no_inputs',
      detail: 'no question number can be changed safely',
    });
  });
  it('does not change a percentage the solution uses in decimal form (150% as 1.5)', () => {
    const g = gsm8k()[2]!;
    const a = analysis(g.question, g.answer);
    expect(a.perturbable).not.toContain('150');
    expect(a.perturbable).not.toContain('80000'); // used three times, stated once
    expect(a.perturbable).toEqual(['50000']);
  });
  it('refuses solutions it cannot trace, saying why', () => {
    const reason = (q: string, s: string) => {
      const a = analyzeProblem(q, s);
      return 'reason' in a ? a.reason : 'ok';
    };
    expect(reason('Has 5 and 4.', 'So 5+4=9.\n#### 9')).toBe('no_annotations');
    expect(reason('Has 5 and 4.', '<<5+4=10>>\n#### 10')).toBe('inconsistent');
    expect(reason('Has 5 and 4.', '<<5+4=9>>\n#### 8')).toBe('final_mismatch');
    expect(reason('Has 5 and 4.', '<<5+4=9>>9')).toBe('no_final_answer');
    expect(reason('Has 5 and 4.', 'so 5*4 = 20 and <<20+4=24>>\n#### 24')).toBe('unannotated_math');
    expect(reason('Has 5 and 4.', '<<5*4=20>> then <<20+37=57>>\n#### 57')).toBe('untraced_constant');
    expect(reason('Has 5, 4 and 9.', '<<5+4=9>> then <<9*2=18>>\n#### 18')).toBe('ambiguous');
    expect(reason('Has five and 1.', '<<5+1=6>>\n#### 6')).toBe('no_inputs');
    expect(reason('Has 5 and 9.', '<<5-9=-4>>\n#### -4')).toBe('negative_result');
    // 60 minutes / 60 is "one hour", not the result divided by itself.
    expect(
      reason('A 360 piece puzzle at 6 pieces a minute.', '<<360/6=60>> min, <<60/60=1>> h\n#### 1'),
    ).toBe('ambiguous');
    // 16 guests = 10 + 6 is a relation the annotations never state.
    expect(
      reason(
        'Of 16 guests, 10 want tea at $2 and 6 want coffee at $3.',
        '<<10*2=20>>, <<6*3=18>>, <<20+18=38>>\n#### 38',
      ),
    ).toBe('unused_number');
  });
  it('keeps world constants, and numbers also written as ordinals, as they are', () => {
    const month = analysis(
      'This month has 30 days and he talks 15 minutes a day.',
      '<<30*15=450>>\n#### 450',
    );
    expect(month.perturbable).toEqual(['15']);
    const tests = analysis(
      'He scored 90 on his first 3 tests and 80 on his 4th. What is his average over the 4 tests?',
      '<<90*3+80=350>> then <<350/4=87.5>>\n#### 87.5',
    );
    expect(tests.perturbable).toEqual(['90', '80']); // not 4 (the 4th), nor 3 (the 3 before the 4th)
  });
});

describe('perturbValue', () => {
  const opts = { range: 0.5, sameDigits: true };
  const v = (s: string, places = 0, k = 0, avoid: string[] = []) => {
    const r = perturbValue(parseDecimal(s)!, places, pick(k), opts, new Set(avoid));
    return r === null ? null : toDecimalString(r, places);
  };
  it('keeps round numbers round, digit counts, non-zero last digits and values ≥ 2', () => {
    expect(v('80000', 0, 0)).toBe('40000');
    expect(v('80000', 0, 99)).toBe('90000');
    expect(v('16', 0, 0)).toBe('11');
    expect(v('16', 0, 99)).toBe('24');
    expect(v('2', 0, 0)).toBe('3');
    expect(v('2', 0, 0, ['3'])).toBeNull();
    expect(v('1.5', 1, 0)).toBe('1.1');
    expect(v('16.50', 2, 0)).toBe('10.00');
    expect(v('10', 0, 0)).toBe('11');
  });
});

describe('tryVariant (golden, pinned choices)', () => {
  it('rewrites question, annotations, prose and the final line consistently', () => {
    const v = tryVariant(analysis(QUESTION, SOLUTION), ['16'], pick(0), { range: 0.5, sameDigits: true });
    expect(v).toEqual({
      question:
        'Janet has 11 eggs. She eats 3 and bakes with 4. She sells the rest for $2 each. How much does she make?',
      solution: 'She has 11-3-4=<<11-3-4=4>>4 left.\nShe makes 4*2=<<4*2=8>>8.\n#### 8',
      answer: '8',
      changes: [['16', '11']],
    });
  });
  it('keeps thousands commas and money formatting', () => {
    const g = gsm8k()[2]!; // Josh flips a house: $80,000 + $50,000 repairs, +150%
    const v = tryVariant(analysis(g.question, g.answer), ['50000'], pick(0), {
      range: 0.5,
      sameDigits: true,
    });
    if (typeof v === 'string') throw new Error(v);
    expect(v.changes).toEqual([['50,000', '30,000']]);
    expect(v.solution).toBe(
      'The cost of the house and repairs came out to 80,000+30,000=$<<80000+30000=110000>>110,000\n' +
        'He increased the value of the house by 80,000*1.5=<<80000*1.5=120000>>120,000\n' +
        'So the new value of the house is 120,000+80,000=$<<120000+80000=200000>>200,000\n' +
        'So he made a profit of 200,000-110,000=$<<200000-110000=90000>>90,000\n' +
        '#### 90000',
    );
    expect(v.answer).toBe('90000');
  });
  it('rewrites a result quoted before its annotation on the same line, not a number on an earlier line', () => {
    const q = 'One friend says 80. Another says 20 more than half of that.';
    const s =
      'Half of 80 is 1 part in 2.\nThe second guessed 60 because 20 + (80/2)= <<20+(80/2)=60>>60\n#### 60';
    const v = tryVariant(analysis(q, s), ['20'], pick(0), { range: 0.5, sameDigits: true });
    expect(v).toEqual({
      question: 'One friend says 80. Another says 10 more than half of that.',
      solution:
        'Half of 80 is 1 part in 2.\nThe second guessed 50 because 10 + (80/2)= <<10+(80/2)=50>>50\n#### 50',
      answer: '50',
      changes: [['20', '10']],
    });
  });
  it('rewrites a result shown with its unit, and refuses to leave a stale one elsewhere', () => {
    const q = 'A file is 300 MB and downloads at 6 MB per minute. How long does it take?';
    const shown = analysis(q, 'It takes 300/6=<<300/6=50>>50min.\n#### 50');
    expect(tryVariant(shown, ['6'], pick(0), { range: 0.5, sameDigits: true })).toMatchObject({
      solution: 'It takes 300/3=<<300/3=100>>100min.\n#### 100',
    });
    const stale = analysis(q, 'It takes 300/6=<<300/6=50>>50 minutes, so 50min.\n#### 50');
    expect(tryVariant(stale, ['6'], pick(0), { range: 0.5, sameDigits: true })).toBe(
      "'50' in the solution would go stale",
    );
  });
  it('does not rewrite a number on an earlier line that only equals a later result', () => {
    const g = gsm8k()[1044]!; // "12 inches in 1 foot" … final answer 1
    const v = tryVariant(analysis(g.question, g.answer), ['50'], pick(99), { range: 0.5, sameDigits: true });
    if (typeof v === 'string') throw new Error(v);
    expect(v.solution).toContain('There are 12 inches in 1 foot.');
    expect(v.solution).toContain('Cole grew to be 70 + 2 = <<70+2=72>>72 inches.');
    expect(v.answer).toBe('21');
  });
  it('rejects attempts whose intermediate results stop being whole numbers', () => {
    const q = 'Tom has 12 apples and shares them among 4 friends. How many does each get?';
    const s = 'Each gets 12/4=<<12/4=3>>3.\n#### 3';
    // 12 → 11 (first option with the same digits and a non-zero last digit): 11/4 is not whole.
    expect(tryVariant(analysis(q, s), ['12'], pick(0), { range: 0.5, sameDigits: true })).toBe(
      'annotation 1 result 2.75 is not nice',
    );
  });
});

describe('numeric_augment', () => {
  it('keeps the parent and emits seeded variants with new ids and provenance', async () => {
    const r = await run(numericAugmentOp, { variants: 3 }, [janet]);
    expect(r.rows[0]).toBe(janet);
    expect(r.rows.slice(1).map((t) => [t.prompt, t.answer, t.meta['solution']])).toEqual([
      [
        'Janet has 23 eggs. She eats 3 and bakes with 5. She sells the rest for $2 each. How much does she make?',
        '30',
        'She has 23-3-5=<<23-3-5=15>>15 left.\nShe makes 15*2=<<15*2=30>>30.\n#### 30',
      ],
      [
        'Janet has 15 eggs. She eats 3 and bakes with 5. She sells the rest for $2 each. How much does she make?',
        '14',
        'She has 15-3-5=<<15-3-5=7>>7 left.\nShe makes 7*2=<<7*2=14>>14.\n#### 14',
      ],
      [
        'Janet has 11 eggs. She eats 3 and bakes with 5. She sells the rest for $2 each. How much does she make?',
        '6',
        'She has 11-3-5=<<11-3-5=3>>3 left.\nShe makes 3*2=<<3*2=6>>6.\n#### 6',
      ],
    ]);
    for (const child of r.rows.slice(1)) {
      expect(child.id).toBe(taskContentId({ prompt: child.prompt, answer: child.answer }));
      expect(child.meta['augmented']).toBe(true);
      expect(child.meta['parentId']).toBe('janet');
      expect(verifyAugmentedSolution(child.meta['solution'] as string)).toEqual({ ok: true });
    }
    expect(r.metrics).toEqual({ variants_emitted: 3, variants_skipped: 0, tasks_not_augmentable: 0 });
  });
  it('is deterministic per task, whatever the batch it arrives in', async () => {
    const other = task('other', 'Tom has 12 apples.', { meta: { solution: '<<12+3=15>>\n#### 15' } });
    const alone = await run(numericAugmentOp, {}, [janet]);
    const mixed = await run(numericAugmentOp, {}, [other], [janet]);
    expect(mixed.rows.filter((t) => t.meta['parentId'] === 'janet')).toEqual(alone.rows.slice(1));
    const reseeded = await run(numericAugmentOp, { seed: 5 }, [janet]);
    expect(reseeded.rows).toHaveLength(2);
  });
  it('records tasks it cannot augment in metrics, never as drops; skips augmented tasks', async () => {
    const plain = task('p', 'What is 2+2?', { answer: '4' });
    const chat = task('c', '', {
      prompt: undefined,
      messages: [{ role: 'user', content: 'hi 5' }],
      meta: { solution: SOLUTION },
    });
    const child = { ...janet, id: 'child', meta: { ...janet.meta, augmented: true } };
    const r = await run(numericAugmentOp, {}, [plain, chat, child]);
    expect(r.rows).toEqual([plain, chat, child]);
    expect(r.dropped).toEqual([]);
    expect(r.metrics).toEqual({
      variants_emitted: 0,
      variants_skipped: 0,
      tasks_not_augmentable: 2,
      not_augmentable_no_solution: 1,
      not_augmentable_chat: 1,
    });
  });
  it('counts a variant it cannot make as skipped, keeping the parent', async () => {
    const tight = task('t', 'Tom has 12 apples and 4 friends. How many each?', {
      meta: { solution: 'Each gets 12/4=<<12/4=3>>3.\n#### 3' },
    });
    const r = await run(numericAugmentOp, { variants: 2, attempts: 1, range: 0.1, sameDigits: true }, [
      tight,
    ]);
    expect(r.rows[0]).toBe(tight);
    expect(r.metrics['variants_emitted']! + r.metrics['variants_skipped']!).toBe(2);
  });
  it('on the first 50 GSM8K test problems: 24 yield a verified variant', async () => {
    const rows = gsm8kTasks(50);
    const r = await run(numericAugmentOp, {}, rows);
    const children = r.rows.filter((t) => t.meta['augmented'] === true);
    expect(children).toHaveLength(24);
    expect(r.metrics['variants_emitted']).toBe(24);
    expect(r.metrics['variants_skipped']! + r.metrics['tasks_not_augmentable']!).toBe(26);
    for (const c of children) {
      const solution = c.meta['solution'] as string;
      expect(verifyAugmentedSolution(solution), solution).toEqual({ ok: true });
      expect(c.answer).toBe(
        solution
          .slice(solution.lastIndexOf('####') + 4)
          .trim()
          .replace(/,/g, ''),
      );
      const parent = rows.find((p) => p.id === c.meta['parentId'])!;
      expect(c.prompt).not.toBe(parent.prompt);
    }
  });
  it('every variant over the whole GSM8K test split passes verifyAugmentedSolution', async () => {
    const rows = gsm8kTasks();
    const r = await run(numericAugmentOp, { variants: 2 }, rows);
    const children = r.rows.filter((t) => t.meta['augmented'] === true);
    expect(children.length).toBeGreaterThan(1000);
    const failures = children.filter((c) => !verifyAugmentedSolution(c.meta['solution'] as string).ok);
    expect(failures).toEqual([]);
    expect(new Set(children.map((c) => c.id)).size).toBe(children.length);
  });
});

describe('rational helper used in goldens', () => {
  it('rational() normalises signs and common factors', () => {
    expect(rational(6n, -4n)).toEqual({ n: -3n, d: 2n });
  });
});
