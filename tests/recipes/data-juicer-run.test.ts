import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readDataset } from '../../src/io/reader.ts';
import { winnow } from '../helpers/cli.ts';
import { tempDir } from '../helpers/tmp.ts';

/**
 * A Data-Juicer text recipe of 13 operators, run unchanged through `winnow run`. Each row below is
 * written to be kept, or dropped by exactly one operator; the expected export and the per-step
 * drop counts follow from the operators' documented meaning (docs/operators.md, docs/recipes.md):
 * ratios worked out in the comments.
 */
/** np: 4 becomes 4 worker threads, or as many as the machine has cores when that is fewer. */
const NP_WORKERS = Math.min(4, availableParallelism());
const NP_NOTE = `np: 4 runs the row-wise operators on ${NP_WORKERS} worker thread(s) (workers: ${NP_WORKERS}${
  NP_WORKERS < 4 ? `; capped: ${availableParallelism()} core(s) available` : ''
})`;

const RECIPE = `# A Data-Juicer recipe, as Data-Juicer users write them.
project_name: 'acceptance-demo'
dataset_path: './raw/mixed.jsonl'
export_path: './out/cleaned.jsonl'
np: 4
text_keys: 'text'
open_tracer: true
use_cache: false

process:
  - clean_html_mapper:
  - clean_email_mapper:
  - clean_links_mapper:
  - whitespace_normalization_mapper:
  - text_length_filter:
      min_len: 20
      max_len: 400
  - words_num_filter:
      lang: en
      tokenization: false
      min_num: 5
      max_num: 100
  - character_repetition_filter:
      rep_len: 10
      max_ratio: 0.3
  - word_repetition_filter:
      lang: en
      tokenization: false
      rep_len: 3
      min_ratio: 0.0
      max_ratio: 0.3
  - special_characters_filter:
      max_ratio: 0.25
  - alphanumeric_filter:
      tokenization: false
      min_ratio: 0.6
  - flagged_words_filter:
      lang: en
      tokenization: false
      max_ratio: 0.0
  - document_deduplicator:
      lowercase: true
      ignore_non_character: false
  - document_minhash_deduplicator:
      tokenization: character
      window_size: 5
      jaccard_threshold: 0.7
`;

const TEXTS: Array<[string, string]> = [
  // kept: tags removed → 70 chars, 14 words, special (spaces and '.') 14/70 = 0.2, alnum 0.80
  ['en-html', '<p>The quick brown fox jumps over the lazy dog near the river bank today.</p>'],
  // kept: the address and the space before it go
  ['en-email', 'Contact me at alice@example.com for the full report on river ecology and fish counts.'],
  ['en-link', 'Read the guide at https://example.com/docs and then try the exercises in chapter two.'],
  // text_length_filter: 15 chars < 20
  ['en-short', 'Too short here.'],
  // words_num_filter: 2 words < 5 (63 chars)
  ['en-two-words', 'Supercalifragilisticexpialidocious antidisestablishmentarianism'],
  // character_repetition_filter: 44 10-grams, 26 distinct, k = min(⌊√26⌋, 3 repeated) = 3 → 21/44 = 0.477 > 0.3
  ['en-char-rep', 'xyzxyzxyzxyzxyzxyzxyzxyzxyzxyz and more words here ok'],
  // word_repetition_filter: char ratio 0.224 passes; 16 of 17 word trigrams repeat → 0.94 > 0.3
  ['en-word-rep', 'the cat sat on the mat, the cat sat on the mat, the cat sat on the mat again'],
  // special_characters_filter: Data-Juicer's special characters are punctuation, digits and
  // whitespace too: ':' + 18 symbols + 13 spaces = 32 / 63 = 0.508 > 0.25
  ['en-special', 'Price list: $$$ @@@ ### %%% &&& *** for every item in stock now'],
  // special_characters_filter: spaces collapse → "a b c d e f g h i j k": 10 spaces / 21 = 0.476 >
  // 0.25 (Data-Juicer's spaces are special; its alnum ratio 11/21 = 0.524 < 0.6 would drop it next)
  ['en-alnum', 'a  b  c  d  e  f  g  h  i  j  k'],
  // flagged_words_filter (lang en: the naughty-words English list): nude, xxx → ratio 2/11 > 0
  ['en-flagged', 'Buy nude pictures and xxx videos here, cheap and fast today.'],
  // document_deduplicator (lowercase): the same text as en-html once the tags are gone
  ['en-exact-dup', '<div>THE QUICK brown fox jumps over the lazy dog near the river bank today.</div>'],
  // document_minhash_deduplicator: en-link with '!' for '.': char 5-gram Jaccard 55/57 = 0.96
  ['en-near-dup', 'Read the guide at https://example.org/docs and then try the exercises in chapter two!'],
  // kept: the run of spaces and the no-break space become one space each
  ['en-spaces', 'Birds   sing\u00a0loudly in the early morning before the sun rises.'],
  // words_num_filter: tokenization: false splits on whitespace only, so the sentence is 1 word < 5
  // (Data-Juicer's meaning; Winnow's segmenter would count 14)
  ['zh-html', '<p>今天天气很好，我们一起去公园散步，然后在湖边喝茶聊天。</p>'],
  // words_num_filter: the address goes → 2 whitespace words < 5
  ['zh-email', '请发邮件到 zhang@example.cn 获取关于河流生态的完整报告和数据。'],
  // text_length_filter: 6 chars
  ['zh-short', '你好，世界。'],
  // words_num_filter: one whitespace word (its char repetition 7/16 = 0.44 would drop it next)
  ['zh-char-rep', '我爱北京，我爱北京，我爱北京，我爱北京，我爱北京。'],
  // words_num_filter: one whitespace word
  ['zh-near-dup', '今天天气很好，我们一起去公园散步，然后在湖边喝茶聊天！'],
];

const row = (i: number, [id, text]: [string, string]) => ({
  id,
  text,
  lang: id.slice(0, 2),
  meta: { source: 'web', position: i, tags: ['demo'] },
});

const EXPECTED_TEXTS: Record<string, string> = {
  'en-html': 'The quick brown fox jumps over the lazy dog near the river bank today.',
  'en-email': 'Contact me at for the full report on river ecology and fish counts.',
  'en-link': 'Read the guide at and then try the exercises in chapter two.',
  'en-spaces': 'Birds sing loudly in the early morning before the sun rises.',
};

const EXPECTED_DROPS: Record<string, number> = {
  clean_html_mapper: 0,
  clean_email_mapper: 0,
  clean_links_mapper: 0,
  whitespace_normalization_mapper: 0,
  text_length_filter: 2,
  words_num_filter: 5,
  character_repetition_filter: 1,
  word_repetition_filter: 1,
  special_characters_filter: 2,
  alphanumeric_filter: 0,
  flagged_words_filter: 1,
  document_deduplicator: 1,
  document_minhash_deduplicator: 1,
};

function project(): string {
  const dir = tempDir('winnow-dj-');
  mkdirSync(join(dir, 'raw'));
  writeFileSync(
    join(dir, 'raw', 'mixed.jsonl'),
    `${TEXTS.map((t, i) => JSON.stringify(row(i, t))).join('\n')}\n`,
  );
  writeFileSync(join(dir, 'recipe.yaml'), RECIPE);
  return dir;
}

const readJsonl = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

/** The expected export: the kept rows in input order, every field as read, the text cleaned. */
const expectedRows = () =>
  TEXTS.map((t, i) => [t, i] as const)
    .filter(([[id]]) => id in EXPECTED_TEXTS)
    .map(([t, i]) => ({ ...row(i, t), text: EXPECTED_TEXTS[t[0]] }));

describe('a Data-Juicer recipe runs unchanged through winnow run', () => {
  const dir = project();
  const run = winnow(['run', 'recipe.yaml', '--json', '--db', join(dir, 'db')], { cwd: dir });

  it('exits 0 and exports the kept rows, row for row, with their original fields', () => {
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(readJsonl(join(dir, 'out', 'cleaned.jsonl'))).toEqual(expectedRows());
  });

  it('names every step after its Data-Juicer operator, with the documented drop counts', () => {
    const out = JSON.parse(run.stdout) as {
      exported: number;
      exportFormat: string;
      notes: string[];
      report: {
        rowsRead: number;
        tasksOut: number;
        steps: Array<{ step: string; rowsIn: number; dropped: number }>;
      };
    };
    expect(out.exported).toBe(4);
    expect(out.exportFormat).toBe('jsonl');
    expect(out.report.rowsRead).toBe(18);
    expect(out.report.tasksOut).toBe(4);
    const drops = Object.fromEntries(
      out.report.steps.filter((s) => s.step in EXPECTED_DROPS).map((s) => [s.step, s.dropped]),
    );
    expect(drops).toEqual(EXPECTED_DROPS);
    expect(out.notes).toEqual([NP_NOTE, 'ignored (no effect on the kept rows): open_tracer, use_cache']);
  });

  it('records each dropped row in rejected under its Data-Juicer operator', () => {
    const r = winnow(['inspect', '--db', join(dir, 'db'), '--table', 'rejected', '--limit', '50', '--json'], {
      cwd: dir,
    });
    expect(r.code).toBe(0);
    const rows = (JSON.parse(r.stdout) as { sample: Array<{ step: string; reason: string }> }).sample;
    const byStep: Record<string, number> = {};
    for (const x of rows) byStep[x.step] = (byStep[x.step] ?? 0) + 1;
    expect(byStep).toEqual(Object.fromEntries(Object.entries(EXPECTED_DROPS).filter(([, n]) => n > 0)));
    expect(rows.find((x) => x.step === 'special_characters_filter')?.reason).toBe(
      'special-char ratio 0.508 > maxRatio 0.25',
    );
  });

  it('refuses to run again onto the export it wrote, and replaces it with --overwrite-export', () => {
    const again = winnow(['run', 'recipe.yaml', '--quiet', '--db', join(dir, 'db2')], { cwd: dir });
    expect(again.code).toBe(2);
    expect(again.stderr.trim().split('\n')).toHaveLength(1);
    expect(again.stderr).toContain('export_path');
    expect(again.stderr).toContain('already exists');
    const forced = winnow(['run', 'recipe.yaml', '--quiet', '--overwrite-export', '--db', join(dir, 'db2')], {
      cwd: dir,
    });
    expect(forced.stderr).toBe('');
    expect(forced.code).toBe(0);
    expect(readJsonl(join(dir, 'out', 'cleaned.jsonl'))).toEqual(expectedRows());
  });

  it('writes Parquet when export_path ends in .parquet, with the same rows', async () => {
    writeFileSync(
      join(dir, 'recipe-parquet.yaml'),
      RECIPE.replace("'./out/cleaned.jsonl'", "'./out/cleaned.parquet'"),
    );
    const r = winnow(['run', 'recipe-parquet.yaml', '--quiet', '--db', join(dir, 'db3')], { cwd: dir });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const rows: Array<Record<string, unknown>> = [];
    for await (const b of readDataset(join(dir, 'out', 'cleaned.parquet')))
      rows.push(...b.records.map((x) => x.fields));
    expect(rows.map((x) => [x.id, x.text, x.lang])).toEqual(
      expectedRows().map((x) => [x.id, x.text, x.lang]),
    );
    expect((rows[0]!.meta as { position: number }).position).toBe(0);
  });
});
