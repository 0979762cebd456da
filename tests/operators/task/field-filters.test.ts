import { describe, expect, it } from 'vitest';
import { fieldRangeFilterOp, numericValue } from '../../../src/operators/task/field-range-filter.ts';
import { fieldValueFilterOp } from '../../../src/operators/task/field-value-filter.ts';
import { suffixFilterOp } from '../../../src/operators/task/suffix-filter.ts';
import { ids, reasons, run, task } from './helpers.ts';

const rows = [
  task('py', 'print(1)', { meta: { __dj__suffix__: '.py', lang: 'en', score: 3.5 } }),
  task('md', '# 标题', { meta: { __dj__suffix__: '.md', lang: 'zh', score: '4' } }),
  task('none', 'テキスト', { meta: { lang: ['zh', 'ja'], score: 0 } }),
  task('mixed', 'text', { meta: { lang: ['zh', 'en'], score: 'abc' } }),
];

describe('suffix_filter', () => {
  it("keeps listed suffixes; a row without one gets `missing` (its file's suffix)", async () => {
    const r = await run(suffixFilterOp, { suffixes: ['.py', '.jsonl'], missing: '.jsonl' }, rows);
    expect(ids(r.rows)).toEqual(['py', 'none', 'mixed']);
    expect(reasons(r)).toEqual([['md', "suffix '.md' is not one of the 2 kept"]]);
  });

  it('keeps every row when no suffix is listed, and drops a row without one when none is missing', async () => {
    expect(ids((await run(suffixFilterOp, {}, rows)).rows)).toEqual(['py', 'md', 'none', 'mixed']);
    const r = await run(suffixFilterOp, { suffixes: ['.md'] }, rows);
    expect(ids(r.rows)).toEqual(['md']);
    expect(reasons(r)[1]).toEqual(['none', 'no suffix: meta.__dj__suffix__ is missing']);
  });
});

describe('field_value_filter (specified_field_filter)', () => {
  it('keeps a value in the list, and a list value only when every element is', async () => {
    const r = await run(fieldValueFilterOp, { field: 'meta.lang', values: ['zh', 'ja'] }, rows);
    expect(ids(r.rows)).toEqual(['md', 'none']);
    expect(reasons(r)).toEqual([
      ['py', 'meta.lang holds "en", not an allowed value'],
      ['mixed', 'meta.lang holds "en", not an allowed value'],
    ]);
  });

  it('drops a row without the field; keeps all without a field or values', async () => {
    const r = await run(fieldValueFilterOp, { field: 'meta.__dj__suffix__', values: ['.py'] }, rows);
    expect(ids(r.rows)).toEqual(['py']);
    expect(reasons(r)[1]).toEqual(['none', 'no field meta.__dj__suffix__']);
    expect(ids((await run(fieldValueFilterOp, { values: ['x'] }, rows)).rows)).toHaveLength(4);
    expect(ids((await run(fieldValueFilterOp, { field: 'meta.lang' }, rows)).rows)).toHaveLength(4);
  });
});

describe('field_range_filter (specified_numeric_field_filter)', () => {
  it('reads numbers and numeric text as Python float does', () => {
    expect(
      [3.5, '4', ' 1e3 ', '-.5', 'inf', '1_000', 'abc', '', true, null].map((v) => numericValue(v)),
    ).toEqual([3.5, 4, 1000, -0.5, Infinity, 1000, undefined, undefined, undefined, undefined]);
  });

  it('keeps values within [min, max]; 0 is a number; text that is not one is dropped', async () => {
    const r = await run(fieldRangeFilterOp, { field: 'meta.score', min: 0, max: 3.5 }, rows);
    expect(ids(r.rows)).toEqual(['py', 'none']);
    expect(reasons(r)).toEqual([
      ['md', 'meta.score 4 > max 3.5'],
      ['mixed', 'meta.score is not a number ("abc")'],
    ]);
  });
});
