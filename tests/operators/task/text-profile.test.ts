import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Task } from '../../../src/core/task.ts';
import { OperatorGraph } from '../../../src/operators/graph.ts';
import { buildGraph } from '../../../src/operators/graph-spec.ts';
import { taskOperatorRegistry } from '../../../src/operators/registries.ts';
import { hashDedupKey } from '../../../src/operators/task/dedup-key.ts';
import { normalizeUnicodeFull } from '../../../src/operators/task/normalize-unicode.ts';
import { normalizeWhitespaceFull } from '../../../src/operators/task/normalize-whitespace.ts';
import { stripHtml } from '../../../src/operators/task/strip-html.ts';
import {
  adoptProfile,
  keptProfile,
  PACKED_PROFILE_INTS,
  packProfile,
  scanAscii,
  textProfile,
} from '../../../src/operators/task/text-profile.ts';
import { charClassCountsFull, countWordsFull } from '../../../src/operators/task/text-stats.ts';

// Every ASCII class (controls, DEL, markup, whitespace kinds, runs of spaces) and a little non-ASCII.
const alphabet = fc.constantFrom(
  ...'aZ09 .,!?$+=()-_\'"<>&;/pb\t\n\r\u000b\u000c\u0001\u007f',
  '  ',
  '<p>',
  '&amp;',
  'é',
  '\u00a0',
  '中',
);
const text = fc.array(alphabet, { maxLength: 40 }).map((xs) => xs.join(''));
const anyAscii = fc.string({
  maxLength: 60,
  unit: fc.integer({ min: 0, max: 127 }).map((c) => String.fromCharCode(c)),
});

describe('ASCII text profile: each flag and count equals the function it stands in for', () => {
  it('scanAscii = countWordsFull, charClassCountsFull, and what strip_html / normalize_unicode / normalize_whitespace do', () => {
    const htmlOpts = { dropContents: ['script', 'style'], knownTagsOnly: true, collapseWhitespace: true };
    const uniOpts = { form: 'NFKC', stripInvisible: true, asciiQuotes: true, asciiDashes: true } as const;
    fc.assert(
      fc.property(fc.oneof(text, anyAscii), (t) => {
        const p = scanAscii(t);
        if ([...t].some((ch) => ch.charCodeAt(0) >= 128)) {
          expect(p).toBeNull();
          return;
        }
        expect(p).not.toBeNull();
        const c = charClassCountsFull(t);
        expect([p!.words, p!.alnum, p!.space, t.length]).toEqual([
          countWordsFull(t),
          c.alnum,
          c.space,
          c.total,
        ]);
        if (p!.noMarkup) expect(stripHtml(t, htmlOpts)).toBe(t);
        if (p!.printable) expect(normalizeUnicodeFull(t, uniOpts)).toBe(t);
        if (p!.whitespaceNormal)
          for (const mode of ['keep', 'paragraphs', 'collapse'] as const)
            expect(normalizeWhitespaceFull(t, mode)).toBe(t);
      }),
      { numRuns: 4000, seed: 15 },
    );
    // The flags are not vacuous: plain prose passes all three, each defect fails its own.
    expect(scanAscii('What is 2 + 2?')).toEqual({
      text: 'What is 2 + 2?',
      words: 5,
      alnum: 8,
      space: 4,
      noMarkup: true,
      printable: true,
      whitespaceNormal: true,
      dedupKey: hashDedupKey('what is 2+2').key,
      dedupCheck: hashDedupKey('what is 2+2').check,
    });
    expect(scanAscii('a <b> c')!.noMarkup).toBe(false);
    expect(scanAscii('a &amp; c')!.noMarkup).toBe(false);
    expect(scanAscii('a\u0001b')!.printable).toBe(false);
    expect(scanAscii('a  b')!.whitespaceNormal).toBe(false);
    expect(scanAscii(' a')!.whitespaceNormal).toBe(false);
    expect(scanAscii('a\nb')!.whitespaceNormal).toBe(false);
    expect(scanAscii('a\nb')!.printable).toBe(true);
  });

  it('packed for another thread and adopted there, equals the scan, dedup hash included', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(text, anyAscii), { maxLength: 8 }), (texts) => {
        const packed = new Int32Array(texts.length * PACKED_PROFILE_INTS);
        texts.forEach((t, i) => {
          packProfile(scanAscii(t), packed, i * PACKED_PROFILE_INTS);
        });
        texts.forEach((t, i) => {
          const task = { id: `t${i}`, prompt: t };
          adoptProfile(task, t, packed, i * PACKED_PROFILE_INTS);
          const want = scanAscii(t);
          expect(keptProfile(task, t)).toEqual(want === null ? undefined : want);
        });
      }),
      { numRuns: 1000, seed: 16 },
    );
    // A profile without a hash (dedupKey −1) stays without one.
    const packed = new Int32Array(PACKED_PROFILE_INTS);
    packProfile({ ...scanAscii('two words')!, dedupKey: -1, dedupCheck: 0 }, packed, 0);
    const task = { id: 'x', prompt: 'two words' };
    adoptProfile(task, 'two words', packed, 0);
    expect([keptProfile(task, 'two words')!.dedupKey, keptProfile(task, 'two words')!.words]).toEqual([
      -1, 2,
    ]);
  });

  it('is kept on the task invisibly and renewed when the text changes', () => {
    const task: Task = { id: 'a', taskset: 't', prompt: 'one two', features: {}, meta: {} };
    expect(keptProfile(task, task.prompt!)).toBeUndefined();
    expect(textProfile(task, task.prompt!)!.words).toBe(2);
    expect(keptProfile(task, task.prompt!)!.words).toBe(2);
    // Invisible to keys, JSON, spread and deep equality.
    expect(Object.keys(task)).toEqual(['id', 'taskset', 'prompt', 'features', 'meta']);
    expect(JSON.stringify(task)).toBe('{"id":"a","taskset":"t","prompt":"one two","features":{},"meta":{}}');
    expect(keptProfile({ ...task }, task.prompt!)).toBeUndefined();
    expect(task).toEqual({ id: 'a', taskset: 't', prompt: 'one two', features: {}, meta: {} });
    // Another text of the same task: scanned afresh; a non-ASCII text has none.
    expect(textProfile(task, 'three four five')!.words).toBe(3);
    expect(keptProfile(task, 'one two')).toBeUndefined();
    expect(textProfile(task, 'née')).toBeNull();
    expect(keptProfile(task, 'née')).toBeNull();
    // A frozen task is profiled, not written to.
    const frozen = Object.freeze({ ...task });
    expect(textProfile(frozen, 'x y')!.words).toBe(2);
    expect(keptProfile(frozen, 'x y')).toBeUndefined();
  });

  it('the cleaning chain keeps the same rows, texts and drop reasons with and without kept profiles', async () => {
    const steps = [
      { op: 'strip_html' },
      { op: 'normalize_unicode', params: { form: 'NFKC' } },
      { op: 'normalize_whitespace' },
      { op: 'length_filter', params: { minWords: 3, maxChars: 40 } },
      { op: 'special_char_ratio_filter', params: { maxRatio: 0.2 } },
      { op: 'alnum_ratio_filter', params: { minRatio: 0.5 } },
    ];
    const registry = taskOperatorRegistry();
    const run = async (tasks: Task[]) => {
      const g = new OperatorGraph<Task>(await buildGraph<Task>(steps, { registry, baseDir: '.' }), {
        seed: 1,
      });
      const out = await g.process(tasks);
      return {
        rows: out.rows.map((t) => [t.id, t.prompt]),
        rejected: out.rejected.map((r) => [r.row.id, r.step, r.reason]),
      };
    };
    const make = (texts: string[]) =>
      texts.map((prompt, i): Task => ({ id: `r${i}`, taskset: 't', prompt, features: {}, meta: {} }));
    // The reference: every step's full function, no profile anywhere.
    const html = registry.get('strip_html').params.parse({}) as Parameters<typeof stripHtml>[1];
    const uni = registry.get('normalize_unicode').params.parse({ form: 'NFKC' }) as Parameters<
      typeof normalizeUnicodeFull
    >[1];
    const reference = (texts: string[]) => {
      const rows: string[][] = [];
      const rejected: string[][] = [];
      texts.forEach((t, i) => {
        const s = normalizeWhitespaceFull(normalizeUnicodeFull(stripHtml(t, html), uni), 'keep');
        const c = charClassCountsFull(s);
        const words = countWordsFull(s);
        const share = (n: number) => (c.total === 0 ? 0 : n / c.total);
        let drop: [string, string] | null = null;
        if (c.total > 40) drop = ['length_filter', `too long: ${c.total} chars > maxChars 40`];
        else if (words < 3) drop = ['length_filter', `too few words: ${words} < minWords 3`];
        else if (share(c.special) > 0.2)
          drop = [
            'special_char_ratio_filter',
            `special-char ratio ${share(c.special).toFixed(3)} > maxRatio 0.2`,
          ];
        else if (share(c.alnum) < 0.5)
          drop = ['alnum_ratio_filter', `alnum ratio ${share(c.alnum).toFixed(3)} < minRatio 0.5`];
        if (drop) rejected.push([`r${i}`, ...drop]);
        else rows.push([`r${i}`, s]);
      });
      return { rows, rejected };
    };
    await fc.assert(
      fc.asyncProperty(fc.array(fc.oneof(text, anyAscii), { maxLength: 30 }), async (texts) => {
        const out = await run(make(texts));
        const want = reference(texts);
        // The chain reports drops step by step: order them by row to compare.
        out.rejected.sort((a, b) => Number(a[0]!.slice(1)) - Number(b[0]!.slice(1)));
        expect(out).toEqual(want);
      }),
      { numRuns: 300, seed: 15 },
    );
    const fixed = await run(make(['What is 2 + 2 then?', '<p>Too   short</p>', 'a $$$ %%% ^^^ b c', 'ok']));
    expect(fixed).toEqual({
      rows: [['r0', 'What is 2 + 2 then?']],
      rejected: [
        ['r1', 'length_filter', 'too few words: 2 < minWords 3'],
        ['r3', 'length_filter', 'too few words: 1 < minWords 3'],
        ['r2', 'special_char_ratio_filter', 'special-char ratio 0.529 > maxRatio 0.2'],
      ],
    });
  });
});

describe("a step's profile pass (Operator.profilePass) never claims a row its process would change or drop", () => {
  const steps = [
    { op: 'strip_html' },
    { op: 'strip_html', params: { knownTagsOnly: false, collapseWhitespace: false } },
    { op: 'normalize_unicode', params: { form: 'NFKC', asciiQuotes: true, asciiDashes: true } },
    { op: 'normalize_unicode', params: { form: 'NFD' } },
    { op: 'normalize_whitespace', params: { newlines: 'keep' } },
    { op: 'normalize_whitespace', params: { newlines: 'collapse' } },
    { op: 'length_filter', params: { minWords: 2, maxWords: 6, minChars: 3, maxChars: 30 } },
    { op: 'length_filter', params: { maxChars: 12 } },
    { op: 'special_char_ratio_filter', params: { maxRatio: 0.2 } },
    { op: 'alnum_ratio_filter', params: { minRatio: 0.6 } },
  ];

  it('passes(profile) ⇒ process keeps the very task, drops nothing, and reports the pass metrics', async () => {
    const reg = taskOperatorRegistry();
    for (const step of steps) {
      const [node] = await buildGraph<Task>([step], { registry: reg, baseDir: '.' });
      if (node?.type !== 'op') throw new Error('expected an operator');
      const op = node.operator;
      const pass = op.profilePass!;
      expect(pass).toBeDefined();
      let passed = 0;
      let refused = 0;
      await fc.assert(
        fc.asyncProperty(fc.oneof(text, anyAscii), async (t) => {
          const profile = scanAscii(t);
          if (profile === null) return;
          const task: Task = { id: 'x', taskset: 's', prompt: t, features: {}, meta: {} };
          const out = await op.process([task], {} as never);
          if (!pass.passes(profile)) {
            refused++;
            return;
          }
          passed++;
          expect(out.rows).toHaveLength(1);
          expect(out.rows[0]).toBe(task);
          expect(out.dropped).toEqual([]);
          expect(out.metrics ?? {}).toEqual(pass.metrics);
        }),
        { numRuns: 400, seed: 11 },
      );
      // Both answers occur for each step (the property is not vacuous).
      expect([step.op, passed > 0, refused > 0]).toEqual([step.op, true, true]);
    }
  });

  it('only steps over the prompt have one', async () => {
    const reg = taskOperatorRegistry();
    for (const step of [
      { op: 'strip_html', params: { field: 'answer' } },
      { op: 'length_filter', params: { field: 'all', minWords: 1 } },
      { op: 'remove_urls_emails' },
    ]) {
      const [node] = await buildGraph<Task>([step], { registry: reg, baseDir: '.' });
      expect(node?.type === 'op' && node.operator.profilePass).toBeFalsy();
    }
  });
});
