import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Task } from '../../../src/core/task.ts';
import { OperatorGraph } from '../../../src/operators/graph.ts';
import { buildGraph } from '../../../src/operators/graph-spec.ts';
import { taskOperatorRegistry } from '../../../src/operators/registries.ts';
import {
  DEFAULT_DEDUP_KEY_OPTIONS,
  type DedupKeyOptions,
  dedupKeyHash,
  generalDedupKey,
  hashDedupKey,
} from '../../../src/operators/task/dedup-key.ts';
import { ExactDedupKeyer } from '../../../src/operators/task/exact-dedup-prepared.ts';
import {
  adoptProfile,
  packProfile,
  scanAscii,
  textProfile,
} from '../../../src/operators/task/text-profile.ts';

// Case, whitespace kinds and runs, punctuation and symbols, digits around . and , , a little non-ASCII.
const alphabet = fc.constantFrom(
  ...'aAzZ09 .,!?$+=()-_\'"<>&;:/#@[]{}%*^|~`\t\n\r\u000b\u000c\u0001\u007f',
  '  ',
  '3.5',
  '1,000',
  ' . ',
  'é',
  'Ａ',
  '\u00a0',
);
const text = fc.array(alphabet, { maxLength: 30 }).map((xs) => xs.join(''));

describe("the ASCII profile's dedup key hash", () => {
  it('equals hashDedupKey(generalDedupKey(text)) for every ASCII text (null profile otherwise)', () => {
    fc.assert(
      fc.property(text, (t) => {
        const p = scanAscii(t);
        if (p === null) {
          expect([...t].some((ch) => ch.charCodeAt(0) >= 128)).toBe(true);
          return;
        }
        const want = hashDedupKey(generalDedupKey(t));
        expect([p.dedupKey, p.dedupCheck]).toEqual([want.key, want.check]);
      }),
      { numRuns: 5000, seed: 15 },
    );
    // Not vacuous: formatting variants share a hash, a changed number does not.
    expect(scanAscii('What is 2 + 2?')!.dedupKey).toBe(scanAscii('  what is 2+2 ! ')!.dedupKey);
    expect(scanAscii('What is 3.5?')!.dedupKey).not.toBe(scanAscii('What is 35?')!.dedupKey);
  });

  it('exact_dedup keeps and drops the same rows with the same reasons whatever profile the tasks carry', async () => {
    const registry = taskOperatorRegistry();
    type Prep = 'none' | 'profiled' | 'adopted';
    const run = async (params: object, texts: string[], prep: Prep) => {
      const g = new OperatorGraph<Task>(
        await buildGraph<Task>([{ op: 'exact_dedup', params }], { registry, baseDir: '.' }),
        { seed: 1 },
      );
      const tasks = texts.map(
        (prompt, i): Task => ({ id: `r${i}`, taskset: 't', prompt, features: {}, meta: {} }),
      );
      const packed = new Int32Array(4);
      for (const t of tasks) {
        // What an earlier text step leaves (a full profile), or a worker's packed one (no hash).
        if (prep === 'profiled') textProfile(t, t.prompt!);
        if (prep === 'adopted') {
          packProfile(scanAscii(t.prompt!), packed, 0);
          adoptProfile(t, t.prompt!, packed, 0);
        }
      }
      const half = Math.floor(tasks.length / 2);
      const a = await g.process(tasks.slice(0, half));
      const b = await g.process(tasks.slice(half));
      return {
        rows: [...a.rows, ...b.rows].map((t) => t.id),
        rejected: [...a.rejected, ...b.rejected].map((r) => [r.row.id, r.reason]),
      };
    };
    // The reference: the key string of the reference function, first occurrence kept.
    const reference = (texts: string[], opts: DedupKeyOptions) => {
      const first = new Map<string, string>();
      const rows: string[] = [];
      const rejected: string[][] = [];
      texts.forEach((t, i) => {
        const k = generalDedupKey(t, opts);
        const was = first.get(k);
        if (was !== undefined) rejected.push([`r${i}`, `duplicate of ${was}`]);
        else {
          first.set(k, `r${i}`);
          rows.push(`r${i}`);
        }
      });
      return { rows, rejected };
    };
    // A few fixed variants beside random texts, so duplicates are common.
    const texts = fc.array(
      fc.oneof(text, fc.constantFrom('What is 2+2?', ' what IS 2 + 2 ', 'what is 2+2!')),
      {
        maxLength: 24,
      },
    );
    const options: Array<Partial<DedupKeyOptions>> = [{}, { lowercase: false }, { whitespace: 'remove' }];
    await fc.assert(
      fc.asyncProperty(texts, fc.constantFrom(...options), async (ts, opts) => {
        const want = reference(ts, { ...DEFAULT_DEDUP_KEY_OPTIONS, ...opts });
        for (const prep of ['none', 'profiled', 'adopted'] as const)
          expect(await run(opts, ts, prep)).toEqual(want);
      }),
      { numRuns: 300, seed: 15 },
    );
  });

  it("a worker's ExactDedupKeyer.hashAll gives dedupKeyHash's pairs, read from kept profiles or computed", () => {
    fc.assert(
      fc.property(fc.array(text, { maxLength: 20 }), fc.boolean(), (ts, lower) => {
        const opts = { ...DEFAULT_DEDUP_KEY_OPTIONS, lowercase: lower };
        const tasks = ts.map(
          (prompt, i): Task => ({ id: `r${i}`, taskset: 't', prompt, features: {}, meta: {} }),
        );
        // Every other task carries a profile.
        for (let i = 0; i < tasks.length; i += 2) textProfile(tasks[i]!, tasks[i]!.prompt!);
        const { keys, checks } = new ExactDedupKeyer({ field: 'prompt', ...opts }).hashAll(tasks);
        const want = ts.map((t) => dedupKeyHash(t, opts));
        expect([...keys]).toEqual(want.map((h) => h.key));
        expect([...checks]).toEqual(want.map((h) => h.check));
      }),
      { numRuns: 300, seed: 15 },
    );
  });
});
