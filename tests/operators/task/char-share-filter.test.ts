import { describe, expect, it } from 'vitest';
import { alnumRatioFilterOp } from '../../../src/operators/task/alnum-ratio-filter.ts';
import { specialCharRatioFilterOp } from '../../../src/operators/task/special-char-ratio-filter.ts';

// The character-share family (char-share-filter.ts): the class-count share has an ASCII-profile
// shortcut and a column-wise form; Data-Juicer's charset, read from the text, has neither.
describe('character-share filters: which forms each params set has', () => {
  it("special_char_ratio_filter: winnow's charset has both, data-juicer's neither", () => {
    const winnow = specialCharRatioFilterOp.params.parse({ minRatio: 0.1 });
    const dj = specialCharRatioFilterOp.params.parse({ charset: 'data-juicer' });
    expect(specialCharRatioFilterOp.columnar?.(winnow)?.kind).toBe('filter');
    expect(specialCharRatioFilterOp.create(winnow).profilePass).toBeDefined();
    expect(specialCharRatioFilterOp.columnar?.(dj)).toBeNull();
    expect(specialCharRatioFilterOp.create(dj).profilePass).toBeUndefined();
  });

  it('alnum_ratio_filter has both with and without maxRatio, and refuses minRatio above maxRatio', () => {
    for (const raw of [{}, { maxRatio: 0.9 }]) {
      const p = alnumRatioFilterOp.params.parse(raw);
      expect(alnumRatioFilterOp.columnar?.(p)?.kind).toBe('filter');
      expect(alnumRatioFilterOp.create(p).profilePass).toBeDefined();
    }
    expect(alnumRatioFilterOp.params.safeParse({ minRatio: 0.5, maxRatio: 0.4 }).success).toBe(false);
  });

  it('both are flagged row-wise and text-only', () => {
    for (const d of [alnumRatioFilterOp, specialCharRatioFilterOp])
      expect([d.name, d.rowWise, d.textOnly, d.needsModel]).toEqual([d.name, true, true, undefined]);
  });
});
