// Writes the tiny causal language model perplexity_filter's tests and examples use: a character
// n-gram (winnow-char-ngram JSON) counted from a corpus. No download, no random choice.
//   node scripts/make-tiny-lm.ts [OUT.json] [--corpus FILE]... [--order N] [--k K] [--langs en,zh,ja]
// Default OUT: .winnow/models/char-lm-en.json (where perplexity_filter looks for lang: en).
// Default corpus: the en/zh/ja sentences of datasets/langid and datasets/langid-sample.
// A .jsonl corpus is read as { lang, text } lines filtered by --langs; any other file line by line.
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { buildTinyLm, TINY_LM_DEFAULTS, writeCharNgram } from '../src/models/char-ngram-build.ts';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    corpus: { type: 'string', multiple: true },
    order: { type: 'string' },
    k: { type: 'string' },
    langs: { type: 'string' },
  },
});

function positive(name: string, raw: string | undefined, fallback: number, int: boolean): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!(n > 0) || (int && !Number.isInteger(n))) {
    console.error(`--${name}: expected a positive ${int ? 'integer' : 'number'}, got '${raw}'`);
    process.exit(2);
  }
  return n;
}

const out = resolve(positionals[0] ?? join('.winnow', 'models', 'char-lm-en.json'));
const model = buildTinyLm({
  ...(values.corpus ? { corpora: values.corpus.map((f) => resolve(f)) } : {}),
  order: positive('order', values.order, TINY_LM_DEFAULTS.order, true),
  k: positive('k', values.k, TINY_LM_DEFAULTS.k, false),
  ...(values.langs !== undefined ? { languages: values.langs.split(',').filter(Boolean) } : {}),
});
console.log(writeCharNgram(out, model));
