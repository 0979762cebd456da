import { z } from 'zod';
import type { Task } from '../../core/task.ts';
import type { Drop } from '../operator.ts';
import { defineOperator } from '../operator.ts';
import { calibratedLanguageScore } from './language-score.ts';
import { readText, TextFieldSchema } from './text-fields.ts';
import { fmtRatio } from './text-stats.ts';

/** A language guess: an ISO 639-1 code ('und' when undetermined) and the detector's top score. */
export interface LanguageGuess {
  language: string;
  score: number;
}

type Detect = (text: string) => LanguageGuess;

let detector: Promise<Detect> | null = null;

/**
 * The language detector: ELD (Efficient Language Detector, Apache-2.0, model shipped in the npm
 * package), medium database. Chosen over tinyld, franc-min and cld3-asm on
 * datasets/langid/sample.jsonl (see docs/operators.md): as accurate as the best, 4x faster.
 * Loaded on first use (about 0.9 s, ~70 MB) so pipelines without the operator never pay for it.
 */
export function languageDetector(): Promise<Detect> {
  detector ??= import('eld/medium').then(({ eld }) => (text: string) => {
    const r = eld.detect(text);
    if (r.language === '') return { language: 'und', score: 0 };
    return { language: r.language, score: r.getScores()[r.language] ?? 0 };
  });
  return detector;
}

const Params = z.strictObject({
  field: TextFieldSchema.default('prompt'),
  /** ISO 639-1 codes to keep (`en`, `zh`, `ja`…); empty keeps any determined language. */
  languages: z.array(z.string().regex(/^[a-z]{2,3}$/, 'an ISO 639-1 code such as en')).default([]),
  /** Lowest score kept, on `scale`. */
  minScore: z.number().min(0).max(1).default(0.5),
  /**
   * `calibrated` (default): ELD's score mapped onto fastText's probability scale, so Data-Juicer's
   * thresholds (0.5–0.8) keep what they keep there (language-score.ts); `eld`: ELD's raw score
   * (about 0.71–0.89 for a confident guess).
   */
  scale: z.enum(['calibrated', 'eld']).default('calibrated'),
  /** Keep the guess on the task: meta.language and features.language_score. */
  annotate: z.boolean().default(true),
});

export const languageIdFilterOp = defineOperator<Task, typeof Params>({
  name: 'language_id_filter',
  kind: 'filter',
  rowWise: true,
  description:
    "Identify the language (ELD); keep tasks in the listed languages with a score (calibrated to fastText's scale) of at least minScore; records meta.language and features.language_score.",
  params: Params,
  create(p) {
    const allowed = new Set(p.languages);
    return {
      name: 'language_id_filter',
      kind: 'filter',
      async process(batch) {
        const detect = await languageDetector();
        const rows: Task[] = [];
        const dropped: Drop<Task>[] = [];
        for (const task of batch) {
          const raw = detect(readText(task, p.field));
          const g = p.scale === 'eld' ? raw : { ...raw, score: calibratedLanguageScore(raw.score) };
          const out = p.annotate
            ? {
                ...task,
                meta: { ...task.meta, language: g.language },
                features: { ...task.features, language_score: g.score },
              }
            : task;
          if (allowed.size > 0 && !allowed.has(g.language))
            dropped.push({
              row: task,
              reason: `language ${g.language} (score ${fmtRatio(g.score)}) not in [${p.languages.join(', ')}]`,
            });
          else if (g.score < p.minScore)
            dropped.push({
              row: task,
              reason: `language ${g.language} score ${fmtRatio(g.score)} < minScore ${p.minScore}`,
            });
          else rows.push(out);
        }
        return { rows, dropped };
      },
    };
  },
});
