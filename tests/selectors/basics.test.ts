import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Task } from '../../src/core/task.ts';
import { decodeArray, encodeArray } from '../../src/selectors/state-codec.ts';
import { digestIds, taskViewFromTasks } from '../../src/selectors/task-view.ts';
import { TopK } from '../../src/selectors/top-k.ts';

describe('taskViewFromTasks', () => {
  it('turns features into NaN-filled columns and meta.domain into domains', () => {
    const tasks: Task[] = [
      {
        id: 'a',
        taskset: 'm',
        prompt: 'x',
        features: { weak_pass_rate: 0.1, level: 2 },
        meta: { domain: 'algebra' },
      },
      { id: 'b', taskset: 'm', prompt: 'y', features: { level: 3 }, meta: {} },
      { id: 'c', taskset: 'c', prompt: 'z', features: {}, meta: { domain: 7 } },
    ];
    const v = taskViewFromTasks(tasks);
    expect(v.ids).toEqual(['a', 'b', 'c']);
    expect(Object.keys(v.features)).toEqual(['level', 'weak_pass_rate']);
    expect(Array.from(v.features['level']!)).toEqual([2, 3, Number.NaN]);
    expect(Array.from(v.features['weak_pass_rate']!)).toEqual([0.1, Number.NaN, Number.NaN]);
    expect(v.domains).toEqual(['algebra', '', '7']);
    expect(v.tasksets).toEqual(['m', 'm', 'c']);
  });

  it('digests id lists stably', () => {
    expect(digestIds(['a', 'b'])).toBe(digestIds(['a', 'b']));
    expect(digestIds(['a', 'b'])).not.toBe(digestIds(['b', 'a']));
  });
});

describe('state codec', () => {
  it('round-trips typed arrays bit-exactly through JSON text, NaN payloads and -0 included', () => {
    fc.assert(
      fc.property(fc.array(fc.double(), { maxLength: 50 }), (xs) => {
        const arr = Float64Array.from(xs);
        const back = decodeArray(JSON.parse(JSON.stringify(encodeArray(arr))), 'float64', 'x');
        expect(new Uint8Array(back.buffer)).toEqual(new Uint8Array(arr.buffer));
      }),
    );
    const ints = Int32Array.from([-5, 0, 2 ** 31 - 1]);
    expect(Array.from(decodeArray(encodeArray(ints), 'int32', 'i'))).toEqual([-5, 0, 2 ** 31 - 1]);
    expect(() => decodeArray(encodeArray(ints), 'float64', 'i')).toThrow(/dtype int32, expected float64/);
    expect(() => decodeArray(encodeArray(ints), 'int32', 'i', 4)).toThrow(/3 entries, expected 4/);
  });
});

describe('TopK', () => {
  it('keeps the k smallest keys, ties by the tie value, whatever the order of offers', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 20 }), { minLength: 1, maxLength: 80 }),
        fc.integer({ min: 0, max: 30 }),
        (keys, k) => {
          const top = new TopK(Math.min(k, keys.length));
          // Offer in reverse order to show the result does not depend on it.
          for (let i = keys.length - 1; i >= 0; i--) top.offer(keys[i]!, i);
          const want = keys
            .map((key, i) => [key, i] as const)
            .sort((a, b) => a[0] - b[0] || a[1] - b[1])
            .slice(0, Math.min(k, keys.length))
            .map(([, i]) => i);
          expect(Array.from(top.sorted())).toEqual(want);
        },
      ),
    );
  });
});
