import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { winnow } from '../helpers/cli.ts';
import { tempDir } from '../helpers/tmp.ts';

/**
 * A Chinese recipe in Data-Juicer's format with Data-Juicer's own thresholds, through `winnow run`:
 * language id at 0.8, stopwords at the default 0.3, flagged words of the Chinese list. The word
 * filters say `tokenization: true`, as Data-Juicer's Chinese recipes do (alpaca-cot-zh-refine):
 * with its default `false` a Chinese paragraph is one whitespace word, there as here. The 16 clean
 * Chinese paragraphs of datasets/langid-paragraphs are all kept (ELD's raw score at 0.8 kept 9 of
 * them; with the raw score and the old short stopword lists this test fails); the rows written to
 * be dropped are dropped by the step named in their id.
 */
const RECIPE = `project_name: zh-calibrated
dataset_path: ./raw/zh.jsonl
export_path: ./out/zh.jsonl
np: 2
process:
  - language_id_score_filter:
      lang: zh
      min_score: 0.8
  - stopwords_filter:
      lang: zh
      tokenization: true
  - flagged_words_filter:
      lang: zh
      tokenization: true
      use_words_aug: true
      max_ratio: 0.0
`;

const PARAGRAPHS = join(import.meta.dirname, '..', '..', 'datasets', 'langid-paragraphs', 'sample.jsonl');
const zh = readFileSync(PARAGRAPHS, 'utf8')
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l) as { lang: string; text: string })
  .filter((p) => p.lang === 'zh')
  .map((p, i) => ({ id: `zh${i}`, text: p.text }));
const planted = [
  // English: not zh.
  {
    id: 'lang-en',
    text: 'She bought three apples at the market, then walked home slowly because it was warm.',
  },
  // A keyword list: no function words (ratio 0).
  { id: 'stop-spam', text: '价格优惠欢迎选购手机电脑相机配件批发零售' },
  // Clean prose with one word of the Chinese naughty-words list (三级片).
  { id: 'flag-zh', text: '我们昨天晚上在家里看了一部三级片，然后就去睡觉了。' },
];

describe('a Chinese Data-Juicer recipe at its own thresholds', () => {
  it('keeps all 16 clean Chinese paragraphs and drops each planted row at its step', () => {
    const dir = tempDir('winnow-dj-zh-');
    mkdirSync(join(dir, 'raw'));
    writeFileSync(join(dir, 'raw', 'zh.jsonl'), [...zh, ...planted].map((r) => JSON.stringify(r)).join('\n'));
    writeFileSync(join(dir, 'recipe.yaml'), RECIPE);
    const r = winnow(['run', 'recipe.yaml', '--db', join(dir, 'db'), '--json'], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { report: { steps: Array<{ step: string; dropped: number }> } };
    const drops = Object.fromEntries(out.report.steps.map((s) => [s.step, s.dropped]));
    expect(drops).toMatchObject({
      language_id_score_filter: 1,
      stopwords_filter: 1,
      flagged_words_filter: 1,
    });
    const kept = readFileSync(join(dir, 'out', 'zh.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { id: string }).id);
    expect(kept).toEqual(zh.map((p) => p.id));
  }, 120_000);
});
