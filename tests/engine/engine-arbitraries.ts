import fc from 'fast-check';
import type { Task } from '../../src/core/task.ts';
import type { StepSpec } from '../../src/operators/graph-spec.ts';

// Random texts and chains of the column-wise operators, shared by the engine's equality tests:
// ASCII, CJK, cased non-ASCII, every kind of whitespace, control characters, lone surrogates,
// empty and long texts.

export const PIECES = [
  'the',
  'cat',
  'The',
  'CAT',
  'sat',
  'on',
  'mat',
  'a',
  'b',
  '2+2=4',
  'http://x.io/a?b=1',
  '<p>',
  '</b>',
  '!!!',
  '???',
  '...',
  '---',
  '***',
  '&amp;',
  '数据',
  '清洗数据',
  '今天天气很好',
  'カタカナ',
  'ภาษาไทย',
  'Ünïcödé',
  'İstanbul',
  'ΣΟΦΙΑ',
  'ß',
  'é',
  '🍎',
  '👩\u200d💻',
  'a\u200cb',
  '\u200b',
  '\u2060',
  '\ufffc',
  '\ufeff',
  '\u00a0',
  '\u3000',
  '\u2028',
  '\u2029',
  '\u0085',
  '\t',
  '\v',
  '\f',
  '\r\n',
  '\r',
  '\n',
  '\n\n',
  '\n\n\n',
  ' ',
  '   ',
  '\u0000',
  '\u0007',
  '\u001f',
  '\ud800',
  '\udc00',
  '\uf8ff',
  '١٢٣',
  '٣',
  'ǅ',
  'ᾈ',
];
export const text = fc.oneof(
  { weight: 8, arbitrary: fc.array(fc.constantFrom(...PIECES), { maxLength: 30 }).map((xs) => xs.join(' ')) },
  { weight: 4, arbitrary: fc.array(fc.constantFrom(...PIECES), { maxLength: 30 }).map((xs) => xs.join('')) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.constant('') },
  { weight: 1, arbitrary: fc.constantFrom('the cat '.repeat(600), '数据 '.repeat(900), 'x'.repeat(2500)) },
);
export const task = fc.record({
  prompt: fc.option(text, { nil: undefined, freq: 8 }),
  answer: fc.option(text, { nil: undefined }),
  messages: fc.constantFrom<Task['messages']>(undefined, [{ role: 'user', content: 'hello  there' }]),
});

const field = fc.constantFrom('prompt', 'answer', 'all');
const ratio = fc.constantFrom(0, 0.1, 0.25, 0.5, 0.75, 1);
export const step: fc.Arbitrary<StepSpec> = fc.oneof(
  fc.record({
    op: fc.constant('normalize_whitespace'),
    params: fc.record({
      field: fc.constantFrom('prompt', 'answer'),
      newlines: fc.constantFrom('keep', 'paragraphs', 'collapse'),
    }),
  }),
  fc.record({
    op: fc.constant('length_filter'),
    params: fc.record(
      {
        field,
        minChars: fc.nat(20),
        maxChars: fc.integer({ min: 20, max: 3000 }),
        minWords: fc.nat(4),
        maxWords: fc.integer({ min: 4, max: 500 }),
      },
      { requiredKeys: ['field'] },
    ),
  }),
  fc.record({ op: fc.constant('special_char_ratio_filter'), params: fc.record({ field, maxRatio: ratio }) }),
  fc.record({ op: fc.constant('alnum_ratio_filter'), params: fc.record({ field, minRatio: ratio }) }),
  fc.record({
    op: fc.constant('word_repetition_filter'),
    params: fc.record({ field, n: fc.integer({ min: 1, max: 4 }), maxRatio: ratio }),
  }),
);
