import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Task } from '../../../src/core/task.ts';
import type { OperatorDefinition } from '../../../src/operators/operator.ts';
import { taskOperators } from '../../../src/operators/task/index.ts';
import { testTokenizerLoader } from '../../helpers/test-tokenizer.ts';
import { gsm8k, makeCtx } from './helpers.ts';

const samples = gsm8k().slice(0, 30);
const realistic = [
  ...samples.map((g) => g.question),
  '<p>Hello &amp; <b>bye</b><script>x()</script></p>',
  'Visit https://example.com/a, or mail bob@example.org now',
  'lorem ipsum dolor sit amet',
  'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
  '  What is 2 + 2 ? ',
  'What is 2+2?',
  '',
  '\u200b\u00a0\u201cquoted\u201d\r\n\r\n\tline',
];

const text = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...realistic) },
  { weight: 2, arbitrary: fc.string({ maxLength: 60 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
);

/** Tasks with few distinct ids (so id duplicates happen), some chats, some GSM8K solutions. */
const taskArb: fc.Arbitrary<Task> = fc
  .record({
    id: fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f'),
    kind: fc.constantFrom('prompt', 'prompt', 'prompt', 'chat'),
    prompt: text,
    answer: fc.option(fc.oneof(text, fc.constantFrom('18', '#### 1,234', '\\boxed{3}')), { nil: undefined }),
    sample: fc.option(fc.integer({ min: 0, max: samples.length - 1 }), { nil: undefined }),
    pass: fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: undefined }),
  })
  .map((r) => {
    const g = r.sample === undefined ? undefined : samples[r.sample]!;
    const base: Task = {
      id: r.id,
      taskset: 'p',
      features: r.pass === undefined ? {} : { pass_rate: r.pass },
      meta: g ? { solution: g.answer } : {},
    };
    if (r.kind === 'chat') base.messages = [{ role: 'user', content: g?.question ?? r.prompt }];
    else base.prompt = g?.question ?? r.prompt;
    if (r.answer !== undefined) base.answer = r.answer;
    return base;
  });

/** The shipped GSM8K test split, the reference set decontaminate needs. */
const GSM8K_TEST = join(import.meta.dirname, '..', '..', '..', 'datasets', 'gsm8k', 'test.jsonl');

/** The least params an operator takes: `{}`, a reference file for decontaminate, or a tokenizer for the token-aware ones. */
function defaultsOf(d: OperatorDefinition<Task, unknown>): Record<string, unknown> {
  if (d.name === 'decontaminate') return { references: [{ file: GSM8K_TEST }] };
  return d.params.safeParse({}).success ? {} : { tokenizer: { package: 'test-tokenizer' } };
}

/** Every operator with its defaults, plus settings that exercise other paths. */
const cases: Array<[OperatorDefinition<Task, unknown>, Record<string, unknown>]> = [
  ...taskOperators.map(
    (d) => [d, defaultsOf(d)] as [OperatorDefinition<Task, unknown>, Record<string, unknown>],
  ),
];
const byName = new Map(taskOperators.map((d) => [d.name, d]));
const extra: Array<[string, Record<string, unknown>]> = [
  ['map_fields', { prompt: '{meta.solution}', rename: { 'features.pass_rate': 'meta.pr' } }],
  ['map_fields', { answer: '{id}: {answer}', onMissing: 'skip' }],
  ['length_filter', { minChars: 5, maxWords: 8, field: 'all' }],
  ['extract_answer', { onFail: 'clear' }],
  ['require_answer', { numeric: true }],
  ['near_dedup', { tokenizer: 'word', threshold: 0.5 }],
  ['difficulty', { mode: 'columns', columns: [{ path: 'pass_rate', invert: true }] }],
  ['numeric_augment', { variants: 3, attempts: 4 }],
  ['token_length_filter', { tokenizer: { package: 'test-tokenizer' }, minTokens: 3, maxTokens: 20 }],
  ['token_count', { tokenizer: { package: 'test-tokenizer' }, field: 'answer' }],
  ['replace_content', { patterns: ['\\d+', 'the'], replacement: ['#', 'THE'], ignoreCase: true }],
  ['remove_long_words', { minLen: 2, maxLen: 6 }],
  ['line_length_filter', { minAverage: 5, maxMaximum: 40 }],
  ['simhash_dedup', { tokenizer: 'char', window: 3, hammingDistance: 10, blocks: 11 }],
  ['chunk_text', { maxLen: 8, overlap: 2 }],
  ['language_id_filter', { languages: ['en', 'zh', 'ja'], minScore: 0.6, annotate: false }],
  ['letters_per_token_filter', { tokenizer: { package: 'test-tokenizer' }, minRatio: 1, maxRatio: 4 }],
  ['letters_per_token_filter', { minRatio: 0.5, lettersOnly: true }],
  ['length_filter', { minWords: 2, maxWords: 9, wordSplit: 'whitespace' }],
  ['length_filter', { minWords: 2, wordSplit: 'tokenizer', tokenizer: { package: 'test-tokenizer' } }],
  ['word_repetition_filter', { n: 2, minRatio: 0.1, wordSplit: 'whitespace' }],
  ['flagged_words_filter', { words: ['a', 'b'], maxRatio: 0.2, wordSplit: 'whitespace', wordsAugSizes: [2] }],
  ['stopwords_filter', { minRatio: 0.1, wordSplit: 'whitespace' }],
  ['special_char_ratio_filter', { minRatio: 0.1, maxRatio: 0.5, charset: 'data-juicer' }],
  ['alnum_ratio_filter', { minRatio: 0.2, maxRatio: 0.9 }],
  ['char_repetition_filter', { n: 3, minRatio: 0.05 }],
  ['simhash_dedup', { ignorePattern: '\\p{P}' }],
  ['remove_latex_header', { dropNoHeader: false }],
  ['remove_latex_comments', { inline: true, multiline: false }],
  ['remove_table_text', { minCol: 2, maxCol: 3 }],
  ['suffix_filter', { suffixes: ['.py'], missing: '.jsonl' }],
  ['field_value_filter', { field: 'meta.lang', values: ['en', 1, null] }],
  ['field_range_filter', { field: 'meta.n', min: 0, max: 10 }],
  ['chinese_convert', { mode: 't2s' }],
];
for (const [name, params] of extra) cases.push([byName.get(name)!, params]);

describe('every task operator', () => {
  it('the list holds each required operator once, by snake_case name', () => {
    expect(taskOperators.map((d) => d.name)).toEqual([
      'map_fields',
      'normalize_whitespace',
      'normalize_unicode',
      'strip_html',
      'remove_urls_emails',
      'length_filter',
      'special_char_ratio_filter',
      'alnum_ratio_filter',
      'char_repetition_filter',
      'word_repetition_filter',
      'flagged_words_filter',
      'extract_answer',
      'require_answer',
      'exact_dedup',
      'near_dedup',
      'decontaminate',
      'difficulty',
      'numeric_augment',
      'chat_template',
      'token_length_filter',
      'token_count',
      'fix_mojibake',
      'normalize_punctuation',
      'remove_ip_addresses',
      'remove_copyright_headers',
      'replace_content',
      'remove_long_words',
      'remove_repeat_sentences',
      'sentence_split',
      'stopwords_filter',
      'line_length_filter',
      'simhash_dedup',
      'chunk_text',
      'letters_per_token_filter',
      'language_id_filter',
      'remove_words_with_substrings',
      'remove_latex_header',
      'remove_latex_comments',
      'remove_bibliography',
      'expand_latex_macros',
      'remove_table_text',
      'suffix_filter',
      'field_value_filter',
      'field_range_filter',
      'chinese_convert',
    ]);
    for (const d of taskOperators) expect(d.description.length).toBeGreaterThan(10);
  });

  for (const [def, params] of cases) {
    it(`${def.name} ${JSON.stringify(params)}: rows out + dropped = rows in (+ emitted); reasons are non-empty`, async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(taskArb, { maxLength: 12 }),
          fc.array(taskArb, { maxLength: 12 }),
          async (b1, b2) => {
            const op = def.create(def.params.parse(params));
            const ctx = { ...makeCtx(3), loadTokenizer: testTokenizerLoader().load };
            let rowsIn = 0;
            let rowsOut = 0;
            let dropped = 0;
            let emitted = 0;
            const kept: Task[] = [];
            for (const batch of [b1, b2]) {
              const r = await op.process(batch, ctx);
              rowsIn += batch.length;
              rowsOut += r.rows.length;
              dropped += r.dropped.length;
              emitted += r.metrics?.['variants_emitted'] ?? 0;
              kept.push(...r.rows);
              for (const d of r.dropped) {
                expect(typeof d.reason).toBe('string');
                expect(d.reason.trim().length).toBeGreaterThan(0);
                expect(batch).toContain(d.row);
              }
            }
            expect(rowsOut).toBe(rowsIn + emitted - dropped);
            if (def.kind !== 'augment') expect(emitted).toBe(0);
            if (def.name === 'exact_dedup') expect(new Set(kept.map((t) => t.id)).size).toBe(kept.length);
          },
        ),
        { numRuns: 40, seed: 20240601 },
      );
    });
  }
});
