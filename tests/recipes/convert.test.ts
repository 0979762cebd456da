import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { parseConfig } from '../../src/core/config.ts';
import { taskPipelineConfigSchema } from '../../src/lifecycle/pipeline/task-pipeline-config.ts';
import { winnow } from '../helpers/cli.ts';
import { tempDir } from '../helpers/tmp.ts';

const RECIPE = `project_name: convert-demo
dataset_path: ./raw/rows.jsonl
export_path: ./out/recipe.jsonl
text_keys: [content, title]
np: 2
process:
  - clean_html_mapper:
  - clean_links_mapper:
      repl: '<link>'
  - punctuation_normalization_mapper:
  - whitespace_normalization_mapper:
  - text_length_filter:
      min_len: 12
  - words_num_filter:
      min_num: 3
  - special_characters_filter:
      max_ratio: 0.3
  - alphanumeric_filter:
      min_ratio: 0.5
  - document_deduplicator:
  - document_minhash_deduplicator:
      window_size: 4
      jaccard_threshold: 0.8
`;

const ROWS = [
  { title: 'a', content: '<b>See</b> https://example.com for   the details, friend.', n: 1 },
  { title: 'b', content: '你好，世界！这是一个测试句子。', n: 2 },
  { title: 'c', content: 'tiny', n: 3 },
  { title: 'd', content: '<b>See</b> https://example.com for   the details, friend.', n: 4 },
  { title: 'e', content: '!!! ??? ### $$$ %%% ^^^ &&& ***', n: 5 },
  { title: 'f', content: 'The river flows north through the valley in spring.', n: 6 },
  { title: 'g', content: 'The river flows north through the valley in spring!', n: 7 },
  { title: 'h', content: '“Quoted” words – with a dash… and more words here.', n: 8 },
];

function project(): string {
  const dir = tempDir('winnow-dj-convert-');
  mkdirSync(join(dir, 'raw'));
  writeFileSync(join(dir, 'raw', 'rows.jsonl'), `${ROWS.map((r) => JSON.stringify(r)).join('\n')}\n`);
  writeFileSync(join(dir, 'recipe.yaml'), RECIPE);
  return dir;
}

const readJsonl = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('winnow convert', () => {
  const dir = project();

  it('prints a pipeline that validates, one Winnow step per Data-Juicer op, named after it', () => {
    const r = winnow(['convert', 'recipe.yaml'], { cwd: dir });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('#   process[9] document_minhash_deduplicator → near_dedup');
    expect(r.stdout).toContain('# np: 2 runs the row-wise operators on 2 worker thread(s) (workers: 2)');
    const config = parseConfig(taskPipelineConfigSchema(), parse(r.stdout));
    expect(config.workers).toBe(2);
    expect(config.input.path).toBe(join(dir, 'raw', 'rows.jsonl'));
    expect(config.mapping.prompt).toEqual({ column: 'content', allowEmpty: true });
    expect(config.operators.map((s) => ('op' in s ? [s.name, s.op] : []))).toEqual([
      ['clean_html_mapper', 'strip_html'],
      ['clean_links_mapper', 'remove_urls_emails'],
      ['punctuation_normalization_mapper', 'normalize_punctuation'],
      ['whitespace_normalization_mapper', 'normalize_whitespace'],
      ['text_length_filter', 'length_filter'],
      ['words_num_filter', 'length_filter'],
      ['special_characters_filter', 'special_char_ratio_filter'],
      ['alphanumeric_filter', 'alnum_ratio_filter'],
      ['document_deduplicator', 'exact_dedup'],
      ['document_minhash_deduplicator', 'near_dedup'],
    ]);
    const minhash = config.operators[9] as { params: Record<string, unknown> };
    expect(minhash.params).toMatchObject({
      tokenizer: 'word',
      ngram: 4,
      permutations: 256,
      bands: 17,
      rows: 15,
      threshold: 0.8,
      verify: false,
      lowercase: true,
    });
    expect(existsSync(join(dir, 'out'))).toBe(false);
  });

  it('gives the same rows as the recipe when run: convert, run both, compare exports row for row', () => {
    const c = winnow(['convert', 'recipe.yaml', '--out', 'pipelines/converted.yaml'], { cwd: dir });
    expect(c.code).toBe(0);
    expect(parse(readFileSync(join(dir, 'pipelines', 'converted.yaml'), 'utf8')).input.path).toBe(
      '../raw/rows.jsonl',
    );

    const viaRecipe = winnow(['run', 'recipe.yaml', '--quiet', '--db', join(dir, 'db-recipe')], { cwd: dir });
    expect(viaRecipe.stderr).toBe('');
    expect(viaRecipe.code).toBe(0);
    const recipeRows = readJsonl(join(dir, 'out', 'recipe.jsonl'));

    // Another working folder: the converted pipeline's paths resolve against its own file.
    const viaPipeline = winnow([
      'run',
      join(dir, 'pipelines', 'converted.yaml'),
      '--quiet',
      '--db',
      join(dir, 'db-p'),
    ]);
    expect(viaPipeline.code).toBe(0);
    const ex = winnow(['export', '--db', join(dir, 'db-p'), '--out', join(dir, 'out', 'pipeline.jsonl')]);
    expect(ex.code).toBe(0);
    const pipelineRows = readJsonl(join(dir, 'out', 'pipeline.jsonl')).map((t) => ({
      content: t.prompt,
      ...(t.meta as Record<string, unknown>),
    }));
    expect(pipelineRows).toEqual(recipeRows);
    // Documented meaning: c too short, d exact and g near duplicates, e all symbols; the link replaced.
    // b is one word (tokenization: false splits on whitespace only, as in Data-Juicer); h, after
    // punctuation normalisation, has 16 special characters (quotes, dash, dots and 9 spaces) in 52.
    expect(recipeRows.map((x) => x.title)).toEqual(['a', 'f']);
    expect(recipeRows[0]!.content).toBe('See <link> for the details, friend.');
  });

  it('refuses a recipe Winnow cannot run (exit 2, one line) and writes no --out file', () => {
    writeFileSync(
      join(dir, 'bad.yaml'),
      RECIPE.replace('  - clean_html_mapper:', '  - video_motion_score_filter:'),
    );
    const r = winnow(['convert', 'bad.yaml', '--out', 'pipelines/bad.yaml'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain(
      "process[0].video_motion_score_filter: operator 1 of 10: Data-Juicer operator 'video_motion_score_filter' is not supported",
    );
    expect(existsSync(join(dir, 'pipelines', 'bad.yaml'))).toBe(false);
  });

  it('refuses a file that is not a Data-Juicer recipe', () => {
    writeFileSync(
      join(dir, 'winnow.yaml'),
      'name: p\ninput: { path: raw/rows.jsonl }\nmapping: { taskset: t, prompt: content }\n',
    );
    const r = winnow(['convert', 'winnow.yaml'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('not a Data-Juicer recipe');
  });
});
