import { describe, expect, it } from 'vitest';
import { RowsEstimate } from '../../src/lifecycle/pipeline/rows-estimate.ts';

describe('RowsEstimate', () => {
  it('scales the first chunk’s lines per byte to the whole input, and keeps that estimate', () => {
    const e = new RowsEstimate();
    expect(e.expected).toBeUndefined();
    e.setInputBytes(10_000_000);
    e.sample(12_000, 2_000_000);
    expect(e.expected).toBe(60_000);
    e.sample(1, 2_000_000);
    expect(e.expected).toBe(60_000);
  });

  it('knows nothing without an input size or from an empty chunk', () => {
    const none = new RowsEstimate();
    none.sample(100, 1000);
    expect(none.expected).toBeUndefined();
    const empty = new RowsEstimate();
    empty.setInputBytes(5000);
    empty.sample(0, 0);
    expect(empty.expected).toBeUndefined();
    empty.sample(10, 1000);
    expect(empty.expected).toBe(50);
  });
});
