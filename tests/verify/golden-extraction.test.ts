import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { verifyMath } from '../../src/verify/index.ts';

/**
 * Answers as models write them (issue 36, point 1): several boxes, "final answer" sentences,
 * labelled and tuple answers, lists joined by words or `;`, chained relations, MATH's `,\!`
 * separator, point sets joined to intervals, `\left[\begin{array}…\right]` matrices, a text equal to
 * itself. Verdicts derived by hand; 23
 * of the first 45 failed before, and the 4 unions that should match could not be read.
 */
interface GoldenCase {
  id: string;
  form: string;
  gold: string;
  response: string;
  verdict: boolean;
}

const CASES = readFileSync(join(import.meta.dirname, 'fixtures', 'math-golden-extraction.jsonl'), 'utf8')
  .split('\n')
  .filter((l) => l.trim() !== '')
  .map((l) => JSON.parse(l) as GoldenCase);

describe('extraction golden suite', () => {
  it('covers every form with right and wrong answers', () => {
    expect(CASES.length).toBeGreaterThanOrEqual(55);
    expect(new Set(CASES.map((c) => c.id)).size).toBe(CASES.length);
    expect([...new Set(CASES.map((c) => c.form))].sort()).toEqual([
      'array_matrix',
      'chain',
      'final_answer',
      'joined_list',
      'labelled',
      'math_separator',
      'same_text',
      'several_boxes',
      'union',
    ]);
    expect(CASES.filter((c) => !c.verdict).length).toBeGreaterThanOrEqual(20);
  });

  for (const c of CASES)
    it(`${c.id}: ${JSON.stringify(c.response).slice(0, 60)} ${c.verdict ? '=' : '≠'} ${JSON.stringify(c.gold).slice(0, 40)}`, () => {
      expect({ id: c.id, correct: verifyMath(c.response, c.gold, { cache: null }).correct }).toEqual({
        id: c.id,
        correct: c.verdict,
      });
    });
});
