import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/core/errors.ts';
import { taskContentId } from '../../../src/core/ids.ts';
import { TaskSchema } from '../../../src/core/task.ts';
import {
  ARITHMETIC_DOMAINS,
  additionCarries,
  arithmeticDifficulty,
  borrowlessDifference,
  carrylessSum,
  forgetfulAnswer,
  generateArithmeticTasks,
  multiplicationCarries,
  subtractionBorrows,
} from '../../../src/explorer/tasks/arithmetic.ts';
import {
  arithmeticDatasets,
  loadArithmeticDatasets,
} from '../../../src/explorer/tasks/arithmetic-datasets.ts';
import { arithmeticReward } from '../../../src/explorer/tasks/arithmetic-reward.ts';

/** Left-to-right evaluation of a prompt like "12+3-4=" or "23*4=". */
function evaluatePrompt(prompt: string): number {
  const expr = prompt.slice(0, -1);
  const parts = expr.split(/([+\-*])/);
  let value = Number(parts[0]);
  for (let i = 1; i < parts.length; i += 2) {
    const b = Number(parts[i + 1]);
    if (parts[i] === '+') value += b;
    else if (parts[i] === '-') value -= b;
    else value *= b;
  }
  return value;
}

describe('carry counting', () => {
  it('counts carries of additions', () => {
    expect(additionCarries(37, 48)).toBe(1);
    expect(additionCarries(999, 1)).toBe(3);
    expect(additionCarries(12, 34)).toBe(0);
    expect(additionCarries(5, 5)).toBe(1);
    expect(additionCarries(0, 0)).toBe(0);
  });
  it('counts borrows of subtractions', () => {
    expect(subtractionBorrows(52, 38)).toBe(1);
    expect(subtractionBorrows(1000, 1)).toBe(3);
    expect(subtractionBorrows(57, 23)).toBe(0);
    expect(subtractionBorrows(100, 99)).toBe(2);
  });
  it('counts digit products that pass a carry on', () => {
    expect(multiplicationCarries(23, 4)).toBe(1); // 3·4 = 12 carries 1; 2·4 + 1 = 9 carries nothing
    expect(multiplicationCarries(99, 9)).toBe(2);
    expect(multiplicationCarries(12, 3)).toBe(0);
    expect(multiplicationCarries(7, 8)).toBe(1);
  });
});

describe('the carry-forgetting pupil', () => {
  it('drops every carry and borrow of + and −, and keeps × exact', () => {
    expect(carrylessSum(37, 48)).toBe(75);
    expect(carrylessSum(95, 17)).toBe(2);
    expect(borrowlessDifference(52, 38)).toBe(24);
    expect(borrowlessDifference(100, 1)).toBe(109);
    expect(forgetfulAnswer('37+48=')).toBe('75');
    expect(forgetfulAnswer('52-38=')).toBe('24');
    expect(forgetfulAnswer('12+34=')).toBe('46');
    expect(forgetfulAnswer('7*8=')).toBe('56');
    expect(forgetfulAnswer('9+5-3=')).toBe('1'); // carryless 9+5 = 4, then 4−3 = 1
    expect(forgetfulAnswer('1+2-9=')).toBe('-6'); // sloppy 3 < 9: falls back to the exact value
  });
  it('agrees with the true answer exactly when nothing carries', () => {
    for (const t of generateArithmeticTasks({ seed: 5, perDomain: 20, domains: ['add2', 'sub2', 'add3'] })) {
      expect(forgetfulAnswer(t.prompt!) === t.answer).toBe(t.features.carries === 0);
    }
  });
});

describe('difficulty', () => {
  it('follows the documented formula', () => {
    expect(arithmeticDifficulty({ digits: 1, operands: 2, carries: 0, mul: 0 })).toBe(0);
    expect(arithmeticDifficulty({ digits: 2, operands: 2, carries: 1, mul: 0 })).toBe(0.25);
    expect(arithmeticDifficulty({ digits: 3, operands: 3, carries: 5, mul: 1 })).toBe(1);
    expect(arithmeticDifficulty({ digits: 2, operands: 2, carries: 1, mul: 1 })).toBe(0.45);
  });
});

describe('generateArithmeticTasks', () => {
  it('is deterministic in the seed and differs across seeds', () => {
    const a = generateArithmeticTasks({ seed: 1, perDomain: 5 });
    const b = generateArithmeticTasks({ seed: 1, perDomain: 5 });
    const c = generateArithmeticTasks({ seed: 2, perDomain: 5 });
    expect(a).toEqual(b);
    expect(a.map((t) => t.prompt)).not.toEqual(c.map((t) => t.prompt));
    expect(a).toHaveLength(5 * ARITHMETIC_DOMAINS.length);
  });

  it('makes valid tasks whose answers are the left-to-right value of the prompt', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1_000_000 }), (seed) => {
        for (const t of generateArithmeticTasks({ seed, perDomain: 3 })) {
          expect(TaskSchema.safeParse(t).success).toBe(true);
          expect(t.answer).toBe(String(evaluatePrompt(t.prompt!)));
          expect(Number(t.answer)).toBeGreaterThanOrEqual(0);
          expect(t.id).toBe(taskContentId({ prompt: t.prompt, answer: t.answer }));
          const d = t.features.difficulty!;
          expect(d).toBeGreaterThanOrEqual(0);
          expect(d).toBeLessThanOrEqual(1);
          expect(d).toBe(arithmeticDifficulty(t.features as never));
          const domain = ARITHMETIC_DOMAINS.find((x) => x.name === t.meta.domain)!;
          expect(t.features.operands).toBe(domain.digits.length);
          expect(t.features.digits).toBe(Math.max(...domain.digits));
        }
      }),
      { numRuns: 25 },
    );
  });

  it('never repeats a prompt and honours the exclude set', () => {
    const first = generateArithmeticTasks({ seed: 3, perDomain: 40, domains: ['add1'] });
    expect(new Set(first.map((t) => t.prompt)).size).toBe(40);
    const rest = generateArithmeticTasks({
      seed: 4,
      perDomain: 100,
      domains: ['add1'],
      exclude: new Set(first.map((t) => t.prompt!)),
    });
    // add1 has exactly 100 distinct problems; 40 are excluded.
    expect(rest).toHaveLength(60);
    for (const t of rest) expect(first.some((f) => f.prompt === t.prompt)).toBe(false);
  });

  it('names an unknown domain with its config path', () => {
    expect(() => generateArithmeticTasks({ seed: 1, perDomain: 1, domains: ['add1', 'div9'] })).toThrow(
      ConfigError,
    );
    expect(() => generateArithmeticTasks({ seed: 1, perDomain: 1, domains: ['add1', 'div9'] })).toThrow(
      /arithmetic\.domains\[1\]: unknown arithmetic domain 'div9'/,
    );
  });
});

describe('shipped datasets', () => {
  it('match the recipe exactly and never share a prompt', async () => {
    const onDisk = await loadArithmeticDatasets();
    const rebuilt = arithmeticDatasets();
    expect(onDisk.train).toEqual(rebuilt.train);
    expect(onDisk.heldout).toEqual(rebuilt.heldout);
    expect(onDisk.heldout).toHaveLength(300);
    expect(onDisk.train).toHaveLength(2394);
    const held = new Set(onDisk.heldout.map((t) => t.prompt));
    expect(onDisk.train.filter((t) => held.has(t.prompt))).toEqual([]);
    expect(new Set(onDisk.train.map((t) => t.taskset))).toEqual(new Set(['arithmetic']));
    expect(new Set(onDisk.heldout.map((t) => t.taskset))).toEqual(new Set(['arithmetic-heldout']));
  });
});

describe('arithmeticReward', () => {
  it('is exact match after trimming', () => {
    expect(arithmeticReward('85', '85')).toBe(1);
    expect(arithmeticReward(' 85\n', '85')).toBe(1);
    expect(arithmeticReward('085', '85')).toBe(0);
    expect(arithmeticReward('', '0')).toBe(0);
    expect(arithmeticReward('3', undefined)).toBeNaN();
  });
});
