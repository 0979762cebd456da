/**
 * ELD's score on the scale of fastText's lid.176 probability, the score Data-Juicer's
 * `language_id_score_filter` thresholds (its recipes use 0.5–0.8).
 *
 * ELD scores the chosen language by n-gram overlap: a confident guess on clean text scores about
 * 0.71–0.89 and never reaches 1, where fastText gives clean text 0.9 and more. Measured on the
 * labelled sample (datasets/langid, datasets/langid-sample, datasets/langid-paragraphs and the
 * 1,319 GSM8K questions; tests/operators/task/language-score.test.ts): the lowest ELD score of a
 * correctly detected text is 0.710 (a GSM8K question), the 1st percentile of GSM8K 0.754; mixed
 * or unclear text (three languages in one paragraph, lorem ipsum) scores 0.48–0.57.
 *
 * The map is piecewise linear through the knots below: 0.70 → 0.80 puts every correctly detected
 * text of the sample at or above Data-Juicer's usual 0.8, 0.55 → 0.50 keeps mixed text around
 * Data-Juicer's lower threshold, and 0.90 → 1.00 spreads ELD's confident range over fastText's.
 * It is monotone, so a Data-Juicer threshold keeps the same order of texts; 0 stays 0 (undetermined).
 */
export const LANGUAGE_SCORE_KNOTS: ReadonlyArray<readonly [eld: number, calibrated: number]> = [
  [0, 0],
  [0.55, 0.5],
  [0.7, 0.8],
  [0.9, 1],
  [1, 1],
];

/** ELD's raw score (0–1) → the calibrated score (0–1), piecewise linear through the knots. */
export function calibratedLanguageScore(eld: number): number {
  if (!(eld > 0)) return 0;
  for (let i = 1; i < LANGUAGE_SCORE_KNOTS.length; i++) {
    const [x1, y1] = LANGUAGE_SCORE_KNOTS[i]!;
    if (eld <= x1) {
      const [x0, y0] = LANGUAGE_SCORE_KNOTS[i - 1]!;
      return y0 + ((eld - x0) * (y1 - y0)) / (x1 - x0);
    }
  }
  return 1;
}
