import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LANGID_SAMPLE_FILES, type LangidSample, readLangidSamples } from '../../../bench/ops-langid.ts';
import { languageDetector, languageIdFilterOp } from '../../../src/operators/task/language-id-filter.ts';
import { calibratedLanguageScore, LANGUAGE_SCORE_KNOTS } from '../../../src/operators/task/language-score.ts';
import { gsm8k, run, task } from './helpers.ts';

/**
 * The labelled sample: 25 languages in short and long sentences (datasets/langid,
 * datasets/langid-sample), clean paragraphs in English, Chinese and Japanese
 * (datasets/langid-paragraphs), and the 1,319 GSM8K test questions as English.
 */
const PARAGRAPHS = join(
  import.meta.dirname,
  '..',
  '..',
  '..',
  'datasets',
  'langid-paragraphs',
  'sample.jsonl',
);
const labelled: LangidSample[] = [
  ...readLangidSamples([...LANGID_SAMPLE_FILES, PARAGRAPHS]),
  ...gsm8k().map((r) => ({ lang: 'en', length: 'long' as const, text: r.question })),
];
const languages = [...new Set(labelled.map((s) => s.lang))].sort();

/** Per language: how many of its correctly detected texts `language_id_filter` keeps at `minScore`. */
async function keepRates(minScore: number, scale: 'calibrated' | 'eld'): Promise<Map<string, number>> {
  const detect = await languageDetector();
  const rates = new Map<string, number>();
  for (const lang of languages) {
    const detected = labelled.filter((s) => s.lang === lang && detect(s.text).language === lang);
    if (detected.length === 0) continue;
    const rows = detected.map((s, i) => task(`${lang}${i}`, s.text));
    const r = await run(languageIdFilterOp, { languages: [lang], minScore, scale }, rows);
    rates.set(lang, r.rows.length / rows.length);
  }
  return rates;
}

describe('language_id_filter scores on Data-Juicer’s scale', () => {
  it('has a labelled sample of 25 languages, with paragraphs in English, Chinese and Japanese', () => {
    expect(languages).toHaveLength(25);
    const count = (lang: string) => labelled.filter((s) => s.lang === lang).length;
    expect([count('en'), count('zh'), count('ja')]).toEqual([5 + 10 + 1319, 5 + 16, 5 + 10]);
  });

  for (const minScore of [0.5, 0.8]) {
    it(`at min_score ${minScore} keeps at least 95% of correctly detected text in every language`, async () => {
      const rates = await keepRates(minScore, 'calibrated');
      // Indonesian reads as Malay (docs/operators.md): it has no correctly detected text.
      expect([...rates.keys()]).toEqual(languages.filter((l) => l !== 'id'));
      const below = [...rates].filter(([, rate]) => rate < 0.95);
      expect(below).toEqual([]);
    }, 60_000);
  }

  it("on ELD's raw scale, Data-Juicer's 0.8 drops most of it (what the calibration fixes)", async () => {
    const raw = await keepRates(0.8, 'eld');
    expect(raw.get('en')!).toBeLessThan(0.8);
    expect(raw.get('zh')!).toBeLessThan(0.7);
    expect([...raw.values()].filter((rate) => rate < 0.95).length).toBeGreaterThanOrEqual(10);
  }, 60_000);

  it('maps through the documented knots, monotone, 0 staying 0', () => {
    expect(LANGUAGE_SCORE_KNOTS.map(([x]) => calibratedLanguageScore(x))).toEqual(
      LANGUAGE_SCORE_KNOTS.map(([, y]) => y),
    );
    expect(calibratedLanguageScore(0.625)).toBeCloseTo(0.65, 12);
    expect(calibratedLanguageScore(0.8)).toBeCloseTo(0.9, 12);
    let last = -1;
    for (let i = 0; i <= 1000; i++) {
      const y = calibratedLanguageScore(i / 1000);
      expect(y).toBeGreaterThanOrEqual(last);
      last = y;
    }
    expect([
      calibratedLanguageScore(0),
      calibratedLanguageScore(1),
      calibratedLanguageScore(Number.NaN),
    ]).toEqual([0, 1, 0]);
  });

  it('keeps lorem ipsum below Data-Juicer’s 0.5 and clean prose above its 0.8', async () => {
    const r = await run(languageIdFilterOp, { minScore: 0.5 }, [
      task('lorem', 'lorem ipsum dolor sit amet consectetur'),
      task('clean', 'She bought three apples at the market, then walked home slowly.'),
    ]);
    expect(r.rows.map((t) => t.id)).toEqual(['clean']);
    expect(r.rows[0]!.features['language_score']).toBeGreaterThan(0.8);
    expect(r.dropped[0]!.reason).toMatch(/^language \w+ score 0\.4\d\d < minScore 0\.5$/);
  });
});
