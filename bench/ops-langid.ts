import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { languageDetector } from '../src/operators/task/language-id-filter.ts';

/**
 * language_id_filter's accuracy on the labelled samples the project ships: datasets/langid
 * (25 languages × one short, one long sentence) and datasets/langid-sample (the same 25 × two short,
 * one long, other topics). Both written for Winnow; see their READMEs.
 */
export const LANGID_SAMPLE_FILES = [
  join(import.meta.dirname, '..', 'datasets', 'langid', 'sample.jsonl'),
  join(import.meta.dirname, '..', 'datasets', 'langid-sample', 'sample.jsonl'),
];

const SampleSchema = z.strictObject({
  lang: z.string(),
  length: z.enum(['short', 'long']),
  text: z.string().min(1),
});
export type LangidSample = z.infer<typeof SampleSchema>;

export function readLangidSamples(files: readonly string[] = LANGID_SAMPLE_FILES): LangidSample[] {
  return files.flatMap((f) =>
    readFileSync(f, 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l, i) => {
        const r = SampleSchema.safeParse(JSON.parse(l));
        if (!r.success) throw new Error(`${f}: line ${i + 1}: ${r.error.issues[0]!.message}`);
        return r.data;
      }),
  );
}

export interface LangidAccuracy {
  samples: number;
  languages: number;
  correct: number;
  accuracy: number;
  short: { samples: number; accuracy: number };
  long: { samples: number; accuracy: number };
  /** Per language: samples, correct, accuracy, and what the wrong guesses were. */
  perLanguage: { lang: string; samples: number; correct: number; accuracy: number; misread: string[] }[];
  /** Detection speed over the sample (texts/s, detector already loaded). */
  textsPerSecond: number;
}

/** Run the detector over every sample (after one warm-up pass that loads the model). */
export async function langidAccuracy(samples: readonly LangidSample[]): Promise<LangidAccuracy> {
  const detect = await languageDetector();
  for (const s of samples) detect(s.text);
  const rounds = 20;
  const t0 = performance.now();
  let guesses: string[] = [];
  for (let r = 0; r < rounds; r++) guesses = samples.map((s) => detect(s.text).language);
  const secs = (performance.now() - t0) / 1000;
  const by = new Map<string, { samples: number; correct: number; misread: string[] }>();
  const len = { short: { n: 0, ok: 0 }, long: { n: 0, ok: 0 } };
  let correct = 0;
  samples.forEach((s, i) => {
    const ok = guesses[i] === s.lang;
    const e = by.get(s.lang) ?? { samples: 0, correct: 0, misread: [] };
    e.samples++;
    len[s.length].n++;
    if (ok) {
      e.correct++;
      correct++;
      len[s.length].ok++;
    } else e.misread.push(`${s.length}→${guesses[i]}`);
    by.set(s.lang, e);
  });
  const ratio = (a: number, b: number) => (b === 0 ? 0 : a / b);
  return {
    samples: samples.length,
    languages: by.size,
    correct,
    accuracy: ratio(correct, samples.length),
    short: { samples: len.short.n, accuracy: ratio(len.short.ok, len.short.n) },
    long: { samples: len.long.n, accuracy: ratio(len.long.ok, len.long.n) },
    perLanguage: [...by.entries()].map(([lang, e]) => ({
      lang,
      ...e,
      accuracy: ratio(e.correct, e.samples),
    })),
    textsPerSecond: (samples.length * rounds) / secs,
  };
}
