import { describe, expect, it } from 'vitest';
import { StringKeySet } from '../../../src/operators/task/exact-dedup-keys.ts';

describe('StringKeySet', () => {
  it('numbers keys in insertion order, finds them exactly, and reports repeats with the first slot', () => {
    const set = new StringKeySet();
    const keys = Array.from({ length: 50_000 }, (_, i) => (i % 7 === 0 ? `é-${i}-✓` : `id${i}`));
    keys.forEach((k, i) => {
      expect(set.add(k)).toBe(i);
    });
    expect(set.size).toBe(50_000);
    expect(set.add('id1')).toBe(-1 - 1);
    expect(set.add('é-49994-✓')).toBe(-49_994 - 1);
    expect(set.find('id49999')).toBe(49_999);
    expect(set.find('id50000')).toBe(-1);
    expect(set.find('id')).toBe(-1);
    expect(set.find('')).toBe(-1);
    expect(set.keyAt(0)).toBe('é-0-✓');
    expect(set.keyAt(12_345)).toBe('id12345');
    expect(set.add('')).toBe(50_000);
    expect(set.keyAt(50_000)).toBe('');
    const long = 'x'.repeat(10_000);
    const slot = set.add(long);
    expect(set.keyAt(slot)).toBe(long);
    expect(set.find(`${long}y`)).toBe(-1);
  });
});
