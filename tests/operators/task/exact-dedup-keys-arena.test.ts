import { describe, expect, it } from 'vitest';
import { StringKeySet } from '../../../src/operators/task/exact-dedup-keys.ts';

describe('StringKeySet arena', () => {
  it('keeps Latin-1 keys in one byte each and widens, keys intact, at the first wider one', () => {
    const set = new StringKeySet();
    const keys: string[] = [];
    for (let i = 0; i < 5000; i++) keys.push(i % 7 === 0 ? `é-${i}` : `s${i}`);
    keys.push('题目-1', 'Ж', '😀 emoji', '');
    for (let i = 5000; i < 20000; i++) keys.push(`s${i}`);
    keys.forEach((k, i) => {
      expect(set.add(k)).toBe(i);
    });
    keys.forEach((k, i) => {
      expect(set.find(k)).toBe(i);
      expect(set.keyAt(i)).toBe(k);
      expect(set.add(k)).toBe(-i - 1);
    });
    expect(set.find('题目-2')).toBe(-1);
    expect(set.find('s20000')).toBe(-1);
    expect(set.size).toBe(keys.length);
  });
});
