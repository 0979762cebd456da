import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { winnow } from '../helpers/cli.ts';
import { tempDir } from '../helpers/tmp.ts';

/**
 * Six of Data-Juicer's own recipes (the same ops and values; our YAML) through `winnow run` on
 * fixtures/dj-mixed-200.jsonl (206 rows: English, Chinese, Japanese; planted duplicates, HTML,
 * mojibake, spam, short rows, near-duplicates; made by make-dj-mixed.ts beside it). The kept ids
 * are those Data-Juicer's documented semantics give: every dropped row is listed with the
 * operator and the reason, derived per row, and the rest are kept.
 */
const FIXTURE = join(import.meta.dirname, 'fixtures', 'dj-mixed-200.jsonl');
const ROWS = readFileSync(FIXTURE, 'utf8')
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l) as { id: string; lang: string; plant: string });
const ALL = ROWS.map((r) => r.id);
const range = (prefix: string, n: number, from = 0) =>
  Array.from({ length: n - from }, (_, i) => `${prefix}${i + from}`);
const ZH = range('zh-p', 16);
const JA = range('ja-p', 10);

// Rows equal to an earlier row once lower-cased and stripped of ASCII punctuation and whitespace
// (document_deduplicator with lowercase + ignore_non_character).
const EXACT = ['dup-en-p1', 'dup-gsm-005', 'dup-gsm-010', 'dup-zh-p2', 'dup-zh-p5', 'dup-ja-p3', 'dup-ja-p7'];
const CASE_SPACE = ['cdup-en-p2', 'cdup-gsm-020', 'cdup-zh-p8', 'cdup-ja-p4'];
// One punctuation mark swapped for its full-width/ASCII twin: equal to the source once \p{P} (or
// [^\w]+) is removed, so their SimHash is the source's (distance 0); MinHash Jaccard > 0.88.
const PUNCT_TWIN = [
  'nd-en-p3',
  'nd-en-p6',
  'nd-gsm-030',
  'nd-gsm-040',
  'nd-zh-p10',
  'nd-zh-p12',
  'nd-ja-p1',
  'nd-ja-p8',
];
const EN_TWINS = ['nd-en-p3', 'nd-en-p6', 'nd-gsm-030', 'nd-gsm-040'];

/** Each recipe's ops (Data-Juicer's values) and its dropped rows, each with why. */
const RECIPES: Array<{ name: string; ops: string; dropped: Record<string, string> }> = [
  {
    name: 'alpaca-cot-en-refine',
    ops: `  - document_deduplicator: { lowercase: true, ignore_non_character: true }
  - alphanumeric_filter: { tokenization: false, min_ratio: 0.1 }
  - character_repetition_filter: { rep_len: 10, max_ratio: 0.6 }
  - flagged_words_filter: { lang: en, tokenization: true, max_ratio: 0.017 }
  - maximum_line_length_filter: { min_len: 20 }
  - text_length_filter: { min_len: 30 }
  - document_simhash_deduplicator: { tokenization: space, window_size: 3, lowercase: true, ignore_pattern: '\\p{P}', num_blocks: 9, hamming_distance: 7 }`,
    dropped: {
      ...by(
        [...EXACT, ...CASE_SPACE],
        'document_deduplicator: same text up to case, ASCII punctuation and spaces',
      ),
      ...by(['sym-0', 'sym-1'], 'alphanumeric_filter: under 10% letters and digits'),
      'flag-en-0': 'flagged_words_filter: 4 flagged words of 20',
      ...by(
        ['short-en-0', 'short-zh-0', 'short-ja-0', 'lines-en-0'],
        'maximum_line_length_filter: no line of 20 characters',
      ),
      // space tokens, window 3: a Chinese or Japanese text without spaces is one token, fewer than
      // the window, so it has no shingle and hashes to 0; zh-p0 is the first such row, kept.
      ...by(
        [...ZH.slice(1), ...JA, 'html-zh-0', 'html-ja-0', 'moji-zh-0', 'rep-zh-0', 'rep-ja-0', 'flag-zh-0'],
        'document_simhash_deduplicator: one space token (< window 3): hash 0, as zh-p0',
      ),
      ...by(PUNCT_TWIN, 'document_simhash_deduplicator: distance 0 to its source'),
    },
  },
  {
    name: 'alpaca-cot-zh-refine',
    ops: `  - document_deduplicator: { lowercase: true, ignore_non_character: true }
  - alphanumeric_filter: { tokenization: false, min_ratio: 0.10 }
  - character_repetition_filter: { rep_len: 10, max_ratio: 0.6 }
  - flagged_words_filter: { lang: zh, tokenization: true, use_words_aug: true, max_ratio: 0.017 }
  - text_length_filter: { min_len: 10 }
  - document_simhash_deduplicator: { tokenization: character, window_size: 4, lowercase: true, ignore_pattern: '\\p{P}', num_blocks: 10, hamming_distance: 8 }`,
    dropped: {
      ...by(
        [...EXACT, ...CASE_SPACE],
        'document_deduplicator: same text up to case, ASCII punctuation and spaces',
      ),
      ...by(['sym-0', 'sym-1'], 'alphanumeric_filter: under 10% letters and digits'),
      'flag-zh-0': 'flagged_words_filter: 三级片 twice and 做爱 among 22 pieces',
      ...by(['short-zh-0', 'short-ja-0'], 'text_length_filter: under 10 characters'),
      ...by(PUNCT_TWIN, 'document_simhash_deduplicator: distance 0 to its source'),
    },
  },
  {
    name: 'redpajama-books',
    ops: `  - document_simhash_deduplicator: { tokenization: character, window_size: 6, lowercase: true, ignore_pattern: '[^\\w]+', num_blocks: 6, hamming_distance: 5 }`,
    dropped: {
      ...by(
        [...EXACT, ...CASE_SPACE, ...PUNCT_TWIN],
        'document_simhash_deduplicator: same word characters as an earlier row',
      ),
      // fewer than 6 word characters: no shingle, hash 0; short-ja-0 (ありがとう, 5) is the first.
      ...by(
        ['sym-0', 'sym-1'],
        'document_simhash_deduplicator: fewer than 6 word characters: hash 0, as short-ja-0',
      ),
    },
  },
  {
    name: 'demo-dedup',
    ops: `  - language_id_score_filter: { lang: en, min_score: 0.5 }
  - document_minhash_deduplicator: { tokenization: 'character' }`,
    dropped: minhashRecipe('document_minhash_deduplicator'),
  },
  {
    name: 'demo-dedup-ray-bts',
    ops: `  - language_id_score_filter: { lang: en, min_score: 0.5 }
  - ray_bts_minhash_deduplicator: { tokenization: 'character', lowercase: true, union_find_parallel_num: 2 }`,
    dropped: minhashRecipe('ray_bts_minhash_deduplicator'),
  },
  {
    name: 'demo-process',
    ops: `  - language_id_score_filter: { lang: 'zh', min_score: 0.8 }`,
    dropped: {
      ...by(
        ALL.filter((id) => !isLang(id, 'zh')),
        'language_id_score_filter: not Chinese',
      ),
      'rep-zh-0': 'language_id_score_filter: eight characters repeated 15 times score under 0.8',
    },
  },
];

function by(ids: string[], reason: string): Record<string, string> {
  return Object.fromEntries(ids.map((id) => [id, reason]));
}

function isLang(id: string, lang: string): boolean {
  return ROWS.find((r) => r.id === id)!.lang === lang;
}

/** demo/dedup and its Ray twin: English only at 0.5, then MinHash over character 5-grams at Jaccard 0.7. */
function minhashRecipe(op: string): Record<string, string> {
  return {
    ...by(
      ALL.filter((id) => !isLang(id, 'en')),
      'language_id_score_filter: not English (Chinese, Japanese, symbols, mis-decoded Chinese)',
    ),
    ...by(
      [...EXACT, ...CASE_SPACE, ...EN_TWINS].filter((id) => isLang(id, 'en')),
      `${op}: Jaccard >= 0.88 with its source`,
    ),
  };
}

describe("Data-Juicer recipes keep the ids Data-Juicer's semantics give", () => {
  it('the fixture has 206 rows in English, Chinese and Japanese with unique ids', () => {
    expect(ALL.length).toBe(206);
    expect(new Set(ALL).size).toBe(206);
    expect(new Set(ROWS.map((r) => r.lang))).toEqual(new Set(['en', 'zh', 'ja', 'none']));
  });

  for (const recipe of RECIPES) {
    it(`${recipe.name}: kept ids as reasoned`, () => {
      const dir = tempDir('winnow-dj-kept-');
      mkdirSync(join(dir, 'out'));
      const yaml = `project_name: ${recipe.name}\ndataset_path: ${FIXTURE}\nexport_path: ./out/kept.jsonl\nnp: 2\nprocess:\n${recipe.ops}\n`;
      writeFileSync(join(dir, 'recipe.yaml'), yaml);
      const r = winnow(['run', 'recipe.yaml', '--db', join(dir, 'db')], { cwd: dir });
      expect(r.code, r.stderr).toBe(0);
      const kept = readFileSync(join(dir, 'out', 'kept.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { id: string }).id);
      // Every row not dropped is kept, identical ones too (demo-process has no dedup op: dup-zh-p2
      // and dup-zh-p5 stay beside zh-p2 and zh-p5, as in Data-Juicer).
      const expected = ALL.filter((id) => !(id in recipe.dropped));
      expect(kept).toEqual(expected);
    }, 180_000);
  }
});
