import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { verifyMath } from '../../src/verify/index.ts';

/**
 * Answers as models write them (issue 36, point 1): long chains of thought ending in boxes, several
 * boxes, "final answer" sentences, labelled and tuple answers, several labelled solutions
 * (`p=5,q=2;p=7,q=2`), ratios, `\pm`, lists joined by words or `;`, chained relations, MATH's
 * `,\!` separator, decimal commas, percentages, units, degrees, `\dfrac`, sets, intervals,
 * unions with point sets, `array` matrices, equations against bare values, negative numbers,
 * scientific notation, a text equal to itself. Verdicts derived by hand, each with its reason
 * (`why`). Of the first 55, 23 failed before the fix that landed with them; of the 193 added
 * after, 36 failed before theirs (ratios, `\pm`, `;`-separated solutions, a chain against the
 * same name, `km/h`-style units and a unit after `\pi`, a `;` list of points, a function label
 * before an expression, inequalities joined by "or", an angle's name, `\mathbb{R}`, "the correct
 * option is (D)", expressions defined only on whole numbers such as `(-1)^{n+1}` and `n!`, set-builder
 * notation `\{x \mid x > 2\}`).
 */
interface GoldenCase {
  id: string;
  form: string;
  gold: string;
  response: string;
  verdict: boolean;
  why: string;
}

const CASES = readFileSync(join(import.meta.dirname, 'fixtures', 'math-golden-extraction.jsonl'), 'utf8')
  .split('\n')
  .filter((l) => l.trim() !== '')
  .map((l) => JSON.parse(l) as GoldenCase);

describe('extraction golden suite', () => {
  it('covers every form with right and wrong answers', () => {
    expect(CASES.length).toBeGreaterThanOrEqual(248);
    expect(CASES.filter((c) => c.why.trim() === '').map((c) => c.id)).toEqual([]);
    expect(new Set(CASES.map((c) => c.id)).size).toBe(CASES.length);
    expect([...new Set(CASES.map((c) => c.form))].sort()).toEqual([
      'array_matrix',
      'chain',
      'decimal_comma',
      'degrees',
      'dfrac',
      'equation',
      'final_answer',
      'interval',
      'joined_list',
      'labelled',
      'labelled_solutions',
      'math_separator',
      'negative',
      'percent',
      'plus_minus',
      'ratio',
      'same_text',
      'scientific',
      'sequence',
      'set',
      'several_boxes',
      'union',
      'units_text',
    ]);
    expect(CASES.filter((c) => !c.verdict).length).toBeGreaterThanOrEqual(80);
  });

  for (const c of CASES)
    it(`${c.id}: ${JSON.stringify(c.response).slice(0, 60)} ${c.verdict ? '=' : '≠'} ${JSON.stringify(c.gold).slice(0, 40)}`, () => {
      expect({
        id: c.id,
        correct: verifyMath(c.response, c.gold, { cache: null }).correct,
        why: c.why,
      }).toEqual({
        id: c.id,
        correct: c.verdict,
        why: c.why,
      });
    });
});
