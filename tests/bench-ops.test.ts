import { describe, expect, it } from 'vitest';
import { winnow } from './helpers/cli.ts';

/**
 * `winnow bench ops` on tiny sizes: the shape of its JSON (every measurement has a baseline from the
 * same run, a ratio, a peak RSS), not its speed. The full run is documented in docs/operators.md.
 */
describe('winnow bench ops (smoke)', () => {
  it('measures the chosen operators against a no-op, the recipe against its no-op twin, and language id', () => {
    const r = winnow([
      'bench',
      'ops',
      '--rows',
      '300',
      '--model-rows',
      '100',
      '--recipe-rows',
      '120',
      '--ops',
      'length_filter,exact_dedup,perplexity_filter',
      '--json',
    ]);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.rows).toBe(300);
    expect(out.baseline).toMatchObject({
      op: 'noop',
      threads: 2,
      rows: 300,
      kept: 300,
      dropped: 0,
      ratioToBaseline: 1,
    });
    expect(
      out.operators.map((m: { op: string; threads: number; rows: number; kept: number; dropped: number }) => [
        m.op,
        m.threads,
        m.rows,
        m.kept + m.dropped,
      ]),
    ).toEqual([
      ['length_filter', 2, 300, 300],
      ['exact_dedup', 1, 300, 300],
      ['perplexity_filter', 2, 100, 100],
    ]);
    for (const m of [out.baseline, ...out.operators]) {
      expect(m.docsPerSecond).toBeGreaterThan(0);
      expect(m.ratioToBaseline).toBeCloseTo(m.docsPerSecond / out.baseline.docsPerSecond, 9);
      expect(m.peakRssMB).toBeGreaterThan(10);
      expect(m.peakRssMB).toBeLessThan(2048);
    }
    // The 10-operator Data-Juicer recipe and its no-op twin, over the same 120 rows.
    expect(out.recipe.baseline).toMatchObject({ name: 'no-op', operators: 0, rows: 120, kept: 120 });
    expect(out.recipe.recipe).toMatchObject({ name: 'recipe-10-ops', operators: 10, rows: 120 });
    expect(out.recipe.ratioToBaseline).toBeCloseTo(
      out.recipe.recipe.rowsPerSecond / out.recipe.baseline.rowsPerSecond,
      9,
    );
    expect(out.langid).toMatchObject({ samples: 125, languages: 25 });
    expect(out.langid.perLanguage).toHaveLength(25);
    expect(out.peakRssMB).toBeLessThan(2048);
    expect(out.notMeasured).toEqual([]);
  }, 120_000);

  it('an unknown operator is a usage error naming the nearest one (exit 2)', () => {
    const r = winnow(['bench', 'ops', '--ops', 'lenght_filter']);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(
      "error: --ops: unknown operator 'lenght_filter'; did you mean 'length_filter'?",
    );
  });
});
