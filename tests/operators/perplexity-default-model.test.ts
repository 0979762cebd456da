import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { EOS, parseArpa, UNK } from '../../src/models/backoff-lm.ts';
import { buildBackoffArpa } from '../../src/models/backoff-lm-build.ts';
import { perplexityFilterOp } from '../../src/operators/task/perplexity-filter.ts';
import { makeCtx, task } from './task/helpers.ts';

const dir = mkdtempSync(join(tmpdir(), 'winnow-ppl-arpa-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function filter(params: unknown, texts: readonly string[]) {
  const op = perplexityFilterOp.create(perplexityFilterOp.params.parse(params));
  const rows = texts.map((t, i) => task(`r${i}`, t));
  const r = await op.process(rows, { ...makeCtx(), baseDir: dir });
  const ppl = (id: string) =>
    [...r.rows, ...r.dropped.map((d) => d.row)].find((t) => t.id === id)!.features.perplexity as number;
  return { kept: r.rows.map((t) => t.id), ppl: texts.map((_, i) => ppl(`r${i}`)), r };
}

/** A hand-written ARPA model: every score below is worked out from these numbers. */
const HAND_ARPA = `\\data\\
ngram 1=5
ngram 2=2

\\1-grams:
-1.0\t</s>
-99\t<s>\t-0.5
-0.5\ta\t-0.3
-0.7\tb\t-0.2
-2.0\t<unk>

\\2-grams:
-0.1\t<s> a
-0.2\ta b

\\end\\
`;

describe('ARPA back-off models (KenLM scoring)', () => {
  const lm = parseArpa(HAND_ARPA, 'hand.arpa');

  it('scores a sentence with <s> before and </s> after, backing off through the context weights', () => {
    // a|<s> = −0.1 (bigram); b|a = −0.2 (bigram); </s>|b = bow(b) −0.2 + p(</s>) −1.0.
    expect(lm.tokenLog10s(['a', 'b'])).toEqual([-0.1, -0.2, -1.2]);
    // b|<s> = bow(<s>) −0.5 + p(b) −0.7; a|b = −0.2 − 0.5; </s>|a = −0.3 − 1.0.
    expect(lm.tokenLog10s(['b', 'a']).map((x) => +x.toFixed(10))).toEqual([-1.2, -0.7, -1.3]);
    // An unknown token reads as <unk> (no back-off weight of its own).
    expect(lm.tokenLog10s(['zz'])).toEqual([-2.5, -1.0]);
    expect(lm.scoreSentence(['a', 'b'])).toBeCloseTo(-1.5, 12);
  });

  it('perplexity_filter with model.path an ARPA file (plain or gzipped): 10^(−log10 P / (words + 1))', async () => {
    writeFileSync(join(dir, 'hand.arpa'), HAND_ARPA);
    writeFileSync(join(dir, 'hand.arpa.gz'), gzipSync(HAND_ARPA));
    for (const path of ['hand.arpa', 'hand.arpa.gz']) {
      const { kept, ppl } = await filter({ model: { path }, maxPpl: 12 }, ['a b', 'b  a\n', 'zz', '']);
      expect(ppl[0]).toBeCloseTo(10 ** (1.5 / 3), 10); // 3.162
      expect(ppl[1]).toBeCloseTo(10 ** (3.2 / 3), 10); // 11.66: whitespace and newlines only separate
      expect(ppl[2]).toBeCloseTo(10 ** (3.5 / 2), 10); // 56.23
      expect(ppl[3]).toBe(1); // nothing to score
      expect(kept).toEqual(['r0', 'r1', 'r3']);
    }
  });

  it('a malformed ARPA file is one error naming the file and the line', () => {
    expect(() => parseArpa(HAND_ARPA.replace('ngram 2=2', 'ngram 2=3'), 'bad.arpa')).toThrow(
      'bad.arpa: line 16: not an ARPA language model: 2 2-grams, 3 declared',
    );
    expect(() => parseArpa('hello', 'x.arpa')).toThrow(
      'x.arpa: line 1: not an ARPA language model: no \\data\\ line',
    );
  });
});

describe('building a back-off model (interpolated Kneser–Ney, pruned)', () => {
  const corpus = [
    ['the', 'cat', 'sat'],
    ['the', 'cat', 'ran'],
    ['a', 'dog', 'sat'],
    ['the', 'dog', 'ran', 'far'],
    ['a', 'cat', 'sat', 'down'],
  ];
  const vocab = ['the', 'cat', 'sat', 'ran', 'a', 'dog', 'far', 'down', EOS, UNK];

  for (const minCount of [1, 2])
    it(`every context's probabilities sum to one (minCount ${minCount})`, () => {
      const lm = parseArpa(buildBackoffArpa(corpus, { order: 3, minCount }), 'built.arpa');
      for (const history of [[], ['the'], ['cat'], ['the', 'cat'], ['a', 'dog'], ['zz'], ['dog', 'ran']]) {
        let sum = 0;
        for (const w of vocab) sum += 10 ** lastLog10(lm, history, w);
        expect(sum).toBeCloseTo(1, 3);
      }
    });

  it('is deterministic and prunes n-grams seen fewer than minCount times', () => {
    const a = buildBackoffArpa(corpus, { order: 3, minCount: 2 });
    expect(buildBackoffArpa(corpus, { order: 3, minCount: 2 })).toBe(a);
    expect(a).toMatch(/\tthe cat\n/); // seen twice
    expect(a).not.toMatch(/\tdog ran far\n/); // seen once
    expect(buildBackoffArpa(corpus, { order: 3, minCount: 1 })).toMatch(/\tdog ran far\n/);
  });
});

/** log10 P(w | <s> history): the score of w (or of </s>) after the history in a sentence. */
function lastLog10(lm: ReturnType<typeof parseArpa>, history: string[], w: string): number {
  return lm.tokenLog10s(w === EOS ? history : [...history, w])[history.length]!;
}

describe("the shipped English model on Data-Juicer's own test (perplexity_filter, max_ppl 900)", () => {
  // Data-Juicer's tests/ops/filter/test_perplexity_filter.py: with lang en and max_ppl 900 its
  // KenLM model keeps exactly the first and fifth texts.
  const texts = [
    "Today is Sunday and it's a happy day!",
    "Today is Sund Sund Sund Sund Sunda and it's a happy day!",
    'a v s e c s f e f g a qkc',
    '，。、„”“«»１」「《》´∶：？！（）；–—．～’…━〈〉【】％►',
    'Do you need a cup of coffee?',
    'emoji表情测试下😊，😸31231',
  ];

  it('keeps what Data-Juicer keeps there, with these scores', async () => {
    const { kept, ppl, r } = await filter({ lang: 'en', maxPpl: 900 }, texts);
    expect(kept).toEqual(['r0', 'r4']);
    expect(ppl.map((p) => Math.round(p * 10) / 10)).toEqual([
      266.7, 3276.7, 14981.1, 323012.1, 124.6, 14511.1,
    ]);
    expect(r.dropped[0]!.reason).toBe('perplexity 3276.7 > maxPpl 900');
  }, 120_000);

  it("model: 'default' uses the shipped model even when a char model file exists", async () => {
    const { ppl } = await filter({ lang: 'en', model: 'default' }, [texts[4]!]);
    expect(Math.round(ppl[0]! * 10) / 10).toBe(124.6);
  }, 120_000);
});
