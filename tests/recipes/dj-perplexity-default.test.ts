import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { winnow } from '../helpers/cli.ts';
import { tempDir } from '../helpers/tmp.ts';

/**
 * Data-Juicer's perplexity_filter as its recipes write it (`lang: en`, a `max_ppl`), with no model
 * file: Winnow's shipped English model scores (datasets/lm/en.arpa.gz). On fixtures/dj-mixed-200.jsonl
 * (English paragraphs and GSM8K questions, Chinese, Japanese, planted noise). The scores are this
 * model's (golden: a change to the model or the formula shows here); which rows fall on which side
 * follows from what the rows are:
 * - Chinese and Japanese text (and the symbol rows): their characters are pieces an English model
 *   has barely seen, so every such row scores above 100,000 and is dropped at any threshold, as
 *   Data-Juicer's English model drops its own Chinese test text;
 * - English noise (HTML markup, repeated spam, a shopping list of short lines, an upper-cased
 *   copy, mojibake) scores high;
 * - the clean English paragraphs all score under 1,500; GSM8K questions, dense with digits (which
 *   Qwen3 splits one by one), spread further: 26 of the fixture's 136 score above 1,500.
 */
const FIXTURE = join(import.meta.dirname, 'fixtures', 'dj-mixed-200.jsonl');
const ROWS = readFileSync(FIXTURE, 'utf8')
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l) as { id: string; lang: string; text: string });

/** The English rows above 1,500, with their perplexity (one decimal, as Data-Juicer rounds it). */
const EN_ABOVE_1500: Record<string, number> = {
  'gsm-000': 1861.4,
  'gsm-001': 3159.3,
  'gsm-003': 1807.8,
  'gsm-006': 2094.4,
  'gsm-007': 1552.4,
  'gsm-022': 3910.7,
  'gsm-033': 3535.5,
  'gsm-034': 4119.5,
  'gsm-036': 1707.2,
  'gsm-040': 6423.8,
  'gsm-050': 2088.8,
  'gsm-053': 1690.8,
  'gsm-054': 1793.4,
  'gsm-055': 3370.6,
  'gsm-059': 1688.4,
  'gsm-066': 1817.1,
  'gsm-072': 1982.0,
  'gsm-075': 1569.9,
  'gsm-082': 2108.4,
  'gsm-083': 4665.1,
  'gsm-089': 2358.5,
  'gsm-091': 3505.8,
  'gsm-096': 2474.1,
  'gsm-097': 4932.2,
  'gsm-105': 3061.9,
  'gsm-121': 2239.3,
  'cdup-en-p2': 260501.0, // upper-cased with doubled spaces
  'nd-gsm-040': 8141.1, // gsm-040 with a full-width full stop
  'html-en-0': 33143.2,
  'html-en-1': 16498.4,
  'html-en-2': 33433.6,
  'html-en-3': 7920.5,
  'moji-en-1': 2752.8,
  'rep-en-0': 9426.5,
  'rep-en-1': 5807.7,
  'flag-en-0': 2995.7,
  'short-en-0': 3003.5,
  'lines-en-0': 25070.9,
};

function runRecipe(maxPpl: number): { kept: string[]; reasons: Map<string, string> } {
  const dir = tempDir('winnow-dj-ppl-');
  mkdirSync(join(dir, 'out'));
  writeFileSync(
    join(dir, 'recipe.yaml'),
    `project_name: ppl-${maxPpl}\ndataset_path: ${FIXTURE}\nexport_path: ./out/kept.jsonl\nnp: 4\nprocess:\n  - perplexity_filter:\n      lang: en\n      max_ppl: ${maxPpl}\n`,
  );
  const r = winnow(['run', 'recipe.yaml', '--db', join(dir, 'db')], { cwd: dir });
  expect(r.code, r.stderr).toBe(0);
  expect(r.stdout).toContain("perplexity_filter (lang: en) scores with Winnow's English model");
  const kept = readFileSync(join(dir, 'out', 'kept.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => (JSON.parse(l) as { id: string }).id);
  const rej = winnow(
    ['inspect', '--db', join(dir, 'db'), '--table', 'rejected', '--json', '--limit', '1000'],
    { cwd: dir },
  );
  const sample = (JSON.parse(rej.stdout) as { sample: { row: number; reason: string }[] }).sample;
  const reasons = new Map(sample.map((s) => [ROWS[s.row - 1]!.id, s.reason]));
  return { kept, reasons };
}

describe("a Data-Juicer recipe's perplexity_filter on the shipped English model", () => {
  it('max_ppl 1500 (bloom-oscar, demo/analyzer, the default): the English rows under it', () => {
    const { kept, reasons } = runRecipe(1500);
    const expected = ROWS.filter((r) => r.lang === 'en' && !(r.id in EN_ABOVE_1500)).map((r) => r.id);
    expect(kept).toEqual(expected);
    expect(kept).toHaveLength(122);
    for (const [id, ppl] of Object.entries(EN_ABOVE_1500))
      expect(reasons.get(id)).toBe(`perplexity ${ppl.toFixed(1)} > maxPpl 1500`);
    // Every Chinese, Japanese and symbol row is dropped, each far above 100,000.
    const other = ROWS.filter((r) => r.lang !== 'en');
    expect(other.length).toBe(46);
    for (const r of other) {
      const m = /^perplexity ([\d.]+) > maxPpl 1500$/.exec(reasons.get(r.id) ?? '');
      expect(Number(m?.[1]), r.id).toBeGreaterThan(100_000);
    }
  }, 240_000);

  it('max_ppl 5000 (the redpajama-cc recipes): English noise goes, the clean English stays', () => {
    const { kept } = runRecipe(5000);
    const above = Object.entries(EN_ABOVE_1500)
      .filter(([, p]) => p > 5000)
      .map(([id]) => id);
    expect(above).toEqual([
      'gsm-040',
      'cdup-en-p2',
      'nd-gsm-040',
      'html-en-0',
      'html-en-1',
      'html-en-2',
      'html-en-3',
      'rep-en-0',
      'rep-en-1',
      'lines-en-0',
    ]);
    expect(kept).toEqual(ROWS.filter((r) => r.lang === 'en' && !above.includes(r.id)).map((r) => r.id));
  }, 240_000);
});
