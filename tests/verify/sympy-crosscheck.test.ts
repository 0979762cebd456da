import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// A second implementation (sympy, through Python) re-derives the golden verdicts on its own.
const HAS_SYMPY = spawnSync('python3', ['-c', 'import sympy, lark'], { encoding: 'utf8' }).status === 0;
if (!HAS_SYMPY)
  console.warn(
    'sympy-crosscheck.test: python3 `sympy` (with `lark`) is not importable; the sympy cross-check of the golden suite is skipped (pip install sympy lark)',
  );

const FIXTURE = join(import.meta.dirname, 'fixtures', 'math-golden.jsonl');
const EXTRACTION_FIXTURE = join(import.meta.dirname, 'fixtures', 'math-golden-extraction.jsonl');
const SCRIPT = join(import.meta.dirname, 'sympy_check.py');

/** The verdicts sympy_check.py gives a fixture's cases, beside the fixture's own. */
function sympyVerdicts(fixture: string) {
  const input = readFileSync(fixture, 'utf8');
  const gold = new Map(
    input
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as { id: string; verdict: boolean })
      .map((c) => [c.id, c.verdict] as const),
  );
  const r = spawnSync('python3', [SCRIPT], { input, encoding: 'utf8', timeout: 240_000 });
  expect(r.status).toBe(0);
  const out = r.stdout
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as { id: string; sympy: boolean | null });
  expect(out.length).toBe(gold.size);
  const decided = out.filter((o) => o.sympy !== null);
  const disagree = decided.filter((o) => o.sympy !== gold.get(o.id)).map((o) => o.id);
  console.log(
    `sympy cross-check of ${fixture.split('/').pop()}: decided ${decided.length}/${out.length}, agreed ${decided.length - disagree.length}, abstained ${out.length - decided.length}`,
  );
  return { decided, disagree };
}

/**
 * Where the script's simpler extraction (the last box only, the whole sentence, no MATH `,\!`,
 * no labels before constants) reads another answer than the verifier: extraction conventions,
 * not equivalence. Every ratio (but a clock-form gold), `\pm` and labelled-solutions case it reads, it judges the same.
 */
const EXTRACTION_ONLY = [
  // several boxes joined into one answer
  ...['000', '001', '002', '003', '004', '005', '012', '013', '016'].map((n) => `several_boxes-${n}`),
  // a final-answer sentence cut to its answer, or written after the last box
  ...['000', '002', '003', '004', '005'].map((n) => `final_answer-${n}`),
  'final_answer-029', // 'The correct option is (D).'
  // MATH's ,\! thousands separator
  ...['000', '001', '003', '004', '010'].map((n) => `math_separator-${n}`),
  'labelled-004', // AB=4, CD=5: segment labels dropped
  'decimal_comma-003', // 1,5 against the list 1, 5 (the script reads 1.5)
  'percent-004', // 33\frac13\%: a mixed number is a sum (the script multiplies)
  'units_text-006', // 3\text{ m}: a one-letter unit (the script keeps 3·m)
  'set-004', // \{0\} against 0: a one-element set is its element
  'ratio-003b', // 11:21 against 22:42: a gold in clock form is a time (the script reads proportions)
];

describe('golden verdicts against sympy', () => {
  it.skipIf(!HAS_SYMPY)(
    'sympy agrees on every case it can read but one (√(x²) = |x|: sympy symbols are complex)',
    () => {
      const { decided, disagree } = sympyVerdicts(FIXTURE);
      expect(disagree).toEqual(['expression-066']);
      expect(decided.length).toBeGreaterThanOrEqual(270);
    },
    180_000,
  );

  it.skipIf(!HAS_SYMPY)(
    'on the model-style suite sympy differs only where its extraction is simpler',
    () => {
      const { decided, disagree } = sympyVerdicts(EXTRACTION_FIXTURE);
      expect(disagree.sort()).toEqual([...EXTRACTION_ONLY].sort());
      expect(decided.length).toBeGreaterThanOrEqual(170);
    },
    240_000,
  );
});
