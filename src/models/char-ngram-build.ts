import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { type CharNgramFile, trainCharNgram } from './char-ngram-lm.ts';

/**
 * The tiny language model the project builds for tests and examples (scripts/make-tiny-lm.ts):
 * a character trigram over the English, Chinese and Japanese sentences of the labelled language
 * samples the project ships (datasets/langid, datasets/langid-sample; written for Winnow, MIT).
 * No random choice is involved: the same corpus and options give a byte-identical file.
 */
export const TINY_LM_DEFAULTS = { order: 3, k: 0.1, languages: ['en', 'zh', 'ja'] } as const;

const ROOT = join(import.meta.dirname, '..', '..');
export const TINY_LM_CORPORA = [
  join(ROOT, 'datasets', 'langid', 'sample.jsonl'),
  join(ROOT, 'datasets', 'langid-sample', 'sample.jsonl'),
];

/** Texts of the given languages from `{ lang, text }` JSON lines, or every line of a plain-text file. */
export function readCorpus(file: string, languages: readonly string[]): string[] {
  const lines = readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '');
  if (!file.endsWith('.jsonl')) return lines;
  const keep = new Set(languages);
  return lines
    .map((l) => JSON.parse(l) as { lang?: string; text?: string })
    .filter((r) => typeof r.text === 'string' && (keep.size === 0 || keep.has(r.lang ?? '')))
    .map((r) => r.text as string);
}

export function buildTinyLm(
  opts: { corpora?: readonly string[]; order?: number; k?: number; languages?: readonly string[] } = {},
): CharNgramFile {
  const corpora = opts.corpora ?? TINY_LM_CORPORA;
  const languages = opts.languages ?? TINY_LM_DEFAULTS.languages;
  const texts = corpora.flatMap((f) => readCorpus(f, languages));
  return trainCharNgram(texts, {
    order: opts.order ?? TINY_LM_DEFAULTS.order,
    k: opts.k ?? TINY_LM_DEFAULTS.k,
    source: corpora.map((f) => relative(ROOT, f)).join(', '),
  });
}

/** Write a model file (creating its folder); returns the path. */
export function writeCharNgram(path: string, model: CharNgramFile): string {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(model)}\n`);
  return path;
}
