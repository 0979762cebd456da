import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTinyLm, writeCharNgram } from '../../src/models/char-ngram-build.ts';
import { CharNgramLm, EOS, trainCharNgram, UNK } from '../../src/models/char-ngram-lm.ts';
import { taskOperatorRegistry } from '../../src/operators/registries.ts';
import { perplexity, perplexityFilterOp } from '../../src/operators/task/perplexity-filter.ts';
import { FakeServer } from '../explorer/openai/fake-server.ts';
import { ids, makeCtx, task } from './task/helpers.ts';

const dir = mkdtempSync(join(tmpdir(), 'winnow-ppl-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Run the operator once over `rows` with `ctx.baseDir` = the temp folder. */
async function filter(params: unknown, rows: ReturnType<typeof task>[]) {
  const op = perplexityFilterOp.create(perplexityFilterOp.params.parse(params));
  return op.process(rows, { ...makeCtx(), baseDir: dir });
}

describe('char n-gram language model', () => {
  it('scores each character then EOS with add-k probabilities (hand-computed)', () => {
    // Training ['ab', 'ba'], order 2, k 1: V = 4 (a, b, UNK, EOS); every context has total 2.
    const lm = new CharNgramLm(trainCharNgram(['ab', 'ba'], { order: 2, k: 1 }));
    expect(lm.file.vocab).toEqual(['a', 'b', UNK, EOS]);
    expect(lm.file.counts).toEqual({
      '\u0002': { a: 1, b: 1 },
      a: { b: 1, [EOS]: 1 },
      b: { [EOS]: 1, a: 1 },
    });
    // 'ab': P(a|BOS) = 2/6, P(b|a) = 2/6, P(EOS|b) = 2/6 → perplexity exactly 3.
    expect(lm.logprobs('ab')).toEqual([Math.log(2 / 6), Math.log(2 / 6), Math.log(2 / 6)]);
    expect(perplexity(lm.logprobs('ab'))).toBeCloseTo(3, 12);
    // 'aa': 2/6, then unseen a|a = 1/6, then EOS|a = 2/6 → (1/3 · 1/6 · 1/3)^(−1/3) = 54^(1/3).
    expect(perplexity(lm.logprobs('aa'))).toBeCloseTo(54 ** (1 / 3), 12);
    // An unseen character is UNK; the empty text is one prediction (EOS|BOS = 1/6): perplexity 6.
    expect(lm.logprobs('z')).toEqual([Math.log(1 / 6), Math.log(1 / 4)]);
    expect(perplexity(lm.logprobs(''))).toBeCloseTo(6, 12);
  });
});

describe('perplexity_filter with a local model', () => {
  // Corpus in three scripts, order 2, k 1: V = 11 (h i こ ん に ち は 你 好, UNK, EOS);
  // BOS has total 3 (你, こ, h once each); every other seen context has total 1.
  beforeAll(() => {
    writeCharNgram(
      join(dir, 'lm-xx.json'),
      trainCharNgram(['你好', 'こんにちは', 'hi'], { order: 2, k: 1, source: 'test' }),
    );
  });
  const rows = [
    task('zh', '你好'), // 2/14 · 2/12 · 2/12 → 252^(1/3) = 6.316
    task('ja', 'こんにちは'), // 2/14 · (2/12)^5 → (7 · 6^5)^(1/6) = 6.156
    task('en', 'ih'), // 1/14 · 1/12 · 1/12 → 2016^(1/3) = 12.63
    task('noise', 'xyz'), // 1/14 · 1/11 · 1/11 · 1/11 (all UNK) → (14 · 11^3)^(1/4) = 11.68
  ];
  const expected = {
    zh: 252 ** (1 / 3),
    ja: (7 * 6 ** 5) ** (1 / 6),
    en: 2016 ** (1 / 3),
    noise: (14 * 11 ** 3) ** (1 / 4),
  };

  it('writes every row’s perplexity, keeps ≤ maxPpl, names score and threshold on drops', async () => {
    const r = await filter({ maxPpl: 10, lang: 'xx', model: { path: 'lm-{lang}.json' } }, rows);
    expect(ids(r.rows)).toEqual(['zh', 'ja']);
    for (const t of [...r.rows, ...r.dropped.map((d) => d.row)])
      expect(t.features.perplexity).toBeCloseTo(expected[t.id as keyof typeof expected], 10);
    expect(r.dropped.map((d) => [d.row.id, d.reason])).toEqual([
      ['en', 'perplexity 12.63 > maxPpl 10'],
      ['noise', 'perplexity 11.68 > maxPpl 10'],
    ]);
  });

  it('an absolute model path and a custom score key', async () => {
    const r = await filter({ maxPpl: 12, model: { path: join(dir, 'lm-xx.json') }, scoreKey: 'ppl' }, rows);
    expect(ids(r.rows)).toEqual(['zh', 'ja', 'noise']);
    expect(r.rows[2]!.features.ppl).toBeCloseTo(expected.noise, 10);
  });

  it('minPpl drops rows below it too (newer Data-Juicer keeps a range)', async () => {
    const r = await filter({ minPpl: 6.2, maxPpl: 12, model: { path: 'lm-xx.json' } }, rows);
    expect(ids(r.rows)).toEqual(['zh', 'noise']);
    expect(r.dropped.map((d) => [d.row.id, d.reason])).toEqual([
      ['ja', 'perplexity 6.156 < minPpl 6.2'],
      ['en', 'perplexity 12.63 > maxPpl 12'],
    ]);
  });

  it('a missing model file is one line naming the file', async () => {
    await expect(filter({ model: { path: 'nowhere-{lang}.json' }, lang: 'fr' }, rows)).rejects.toThrow(
      `${join(dir, 'nowhere-fr.json')}: model.path: no language model at this path (build one with: node scripts/make-tiny-lm.ts OUT.json --corpus CORPUS.txt)`,
    );
  });

  it('a language with no shipped model and no model file names both and how to build one', async () => {
    await expect(filter({ lang: 'fr' }, rows)).rejects.toThrow(
      `lang: Winnow ships no language model for 'fr' (it ships: en), and ${join(dir, '.winnow/models/char-lm-fr.json')} does not exist (build one from clean text of that language: node scripts/make-tiny-lm.ts ${join(dir, '.winnow/models/char-lm-fr.json')} --corpus clean.txt, or give model.path an ARPA file)`,
    );
  });

  it('is registered and refuses unknown params', () => {
    const def = taskOperatorRegistry().get('perplexity_filter');
    expect(def.params.safeParse({ max_ppl: 3 }).success).toBe(false);
    expect(def.params.parse({})).toMatchObject({ maxPpl: 1500, lang: 'en', scoreKey: 'perplexity' });
  });
});

describe('the tiny model the project builds (scripts/make-tiny-lm.ts)', () => {
  it('is byte-identical on every build and scores in-domain text below shuffled text', async () => {
    const a = writeCharNgram(join(dir, 'a.json'), buildTinyLm());
    const b = writeCharNgram(join(dir, 'b.json'), buildTinyLm());
    expect(readFileSync(a, 'utf8')).toBe(readFileSync(b, 'utf8'));
    const lm = CharNgramLm.load(a);
    expect(lm.file).toMatchObject({ order: 3, k: 0.1 });
    // Perplexity recomputed from the file's counts by hand: P = (c + k) / (total + k·V).
    const { counts, vocab, k } = lm.file;
    const byHand = (text: string) => {
      const seq = ['\u0002', '\u0002', ...[...text].map((c) => (vocab.includes(c) ? c : UNK)), EOS];
      let sum = 0;
      for (let i = 2; i < seq.length; i++) {
        const row = counts[seq[i - 2]! + seq[i - 1]!] ?? {};
        const total = Object.values(row).reduce((s, n) => s + n, 0);
        sum += Math.log(((row[seq[i]!] ?? 0) + k) / (total + k * vocab.length));
      }
      return Math.exp(-sum / (seq.length - 2));
    };
    const rows = [
      task('en', 'The library opens early on Saturdays.'),
      task('zh', '图书馆每周六很早就开门。'),
      task('ja', '図書館は土曜日の朝早く開きます。'),
      task('en-shuffled', 'yStlar ar.aebTdohrnsiy relo ua p ens'),
      task('zh-shuffled', '开早门很六馆书每。周就图'),
      task('ja-shuffled', '開朝早き書日土館す曜。のは図ま'),
    ];
    const r = await filter({ maxPpl: 20, model: { path: a } }, rows);
    const scores = Object.fromEntries(
      [...r.rows, ...r.dropped.map((d) => d.row)].map((t) => [t.id, t.features.perplexity]),
    );
    for (const t of rows) expect(scores[t.id]).toBeCloseTo(byHand(t.prompt!), 9);
    expect(ids(r.rows)).toEqual(['en', 'zh', 'ja']);
    expect(r.dropped.map((d) => d.row.id)).toEqual(['en-shuffled', 'zh-shuffled', 'ja-shuffled']);
  });
});

describe('perplexity_filter through an endpoint (prompt logprobs, echo)', () => {
  const server = new FakeServer();
  beforeAll(() => server.start());
  afterAll(() => server.stop());

  it('sends the prompts with echo and logprobs, cuts the generated token, scores exp(−mean)', async () => {
    const rows = [
      task('en', 'hello'), // four −1 after the first token → e^1
      task('zh', '你好吗'), // two −2 → e^2
      task('ja', 'こんにちは'), // four −2 → e^2
      task('mixed', 'hi你'), // −1, −2 → e^1.5
    ];
    const endpoint = { model: 'm', baseUrl: server.url('prompt-logprobs', 'a'), batchSize: 3 };
    const r = await filter({ maxPpl: 5, endpoint }, rows);
    expect(ids(r.rows)).toEqual(['en', 'mixed']);
    expect(r.rows.map((t) => t.features.perplexity)).toEqual([Math.exp(1), Math.exp(1.5)]);
    expect(r.dropped.map((d) => [d.row.id, d.reason])).toEqual([
      ['zh', 'perplexity 7.389 > maxPpl 5'],
      ['ja', 'perplexity 7.389 > maxPpl 5'],
    ]);
    const seen = server.seen('prompt-logprobs', 'a');
    expect(seen.map((s) => s.path)).toEqual(['/v1/completions', '/v1/completions']);
    expect(seen[0]!.body).toEqual({
      model: 'm',
      prompt: ['hello', '你好吗', 'こんにちは'],
      echo: true,
      logprobs: 1,
      max_tokens: 1,
      temperature: 0,
    });
    expect(seen[1]!.body.prompt).toEqual(['hi你']);
  });

  it('with maxTokens 0 nothing is generated and the same scores come back', async () => {
    const endpoint = { model: 'm', baseUrl: server.url('prompt-logprobs', 'b'), maxTokens: 0 };
    const r = await filter({ maxPpl: 100, endpoint }, [task('zh', '你好吗')]);
    expect(r.rows[0]!.features.perplexity).toBe(Math.exp(2));
  });

  it('a server without prompt logprobs fails with one line naming the URL', async () => {
    const endpoint = { model: 'm', baseUrl: server.url('bad-request', 'c'), retries: 0 };
    await expect(filter({ endpoint }, [task('en', 'hello')])).rejects.toThrow(
      `${server.url('bad-request', 'c')}/completions: prompt logprobs failed (HTTP 400: {"error":{"message":"max_tokens is too large"}})`,
    );
  });
});
