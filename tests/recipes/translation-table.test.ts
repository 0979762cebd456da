import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { taskOperatorRegistry } from '../../src/operators/registries.ts';
import { DATA_JUICER_OPS, DJ_RUNTIME_PARAMS } from '../../src/recipes/data-juicer-ops.ts';
import { prepareRecipe } from '../../src/recipes/run-recipe.ts';
import { REPO_ROOT } from '../helpers/cli.ts';
import { tempDir } from '../helpers/tmp.ts';

const registry = taskOperatorRegistry();
const dir = tempDir('winnow-dj-table-');
const data = join(dir, 'd.jsonl');
writeFileSync(data, '{"text":"x"}\n');
// perplexity_filter's model must exist before a recipe naming it validates (contents are read at run time).
mkdirSync(join(dir, '.winnow', 'models'), { recursive: true });
writeFileSync(join(dir, '.winnow', 'models', 'char-lm-en.json'), '{}');

/** Translate a one-op recipe (no run) and return the Winnow step it became. */
function translateOne(op: string, args: Record<string, unknown> | null) {
  const raw = { dataset_path: data, export_path: join(dir, 'o.jsonl'), process: [{ [op]: args }] };
  const { config } = prepareRecipe(join(dir, 'r.yaml'), raw, { registry, cwd: dir });
  return config.operators[0] as { op: string; name: string; params: Record<string, unknown> };
}

describe('the Data-Juicer translation table', () => {
  it('maps every entry onto a registered Winnow operator, and its defaults validate against it', () => {
    for (const [dj, def] of Object.entries(DATA_JUICER_OPS)) {
      expect(registry.has(def.winnow), `${dj} → ${def.winnow}`).toBe(true);
      const step = translateOne(dj, null);
      expect(step.op).toBe(def.winnow);
      expect(step.name).toBe(dj);
    }
  });

  it("applies Data-Juicer's defaults where the recipe leaves a parameter out", () => {
    expect(translateOne('text_length_filter', null).params).toMatchObject({ minChars: 10 });
    expect(translateOne('text_length_filter', null).params.maxChars).toBeUndefined();
    expect(translateOne('words_num_filter', { max_num: 2 ** 63 }).params).toMatchObject({
      minWords: 10,
    });
    expect(translateOne('words_num_filter', { max_num: 2 ** 63 }).params.maxWords).toBeUndefined();
    expect(translateOne('alphanumeric_filter', null).params).toMatchObject({ minRatio: 0.25 });
    expect(translateOne('character_repetition_filter', null).params).toMatchObject({ n: 10, maxRatio: 0.5 });
    expect(translateOne('flagged_words_filter', null).params).toMatchObject({
      words: [],
      lang: ['en'],
      maxRatio: 0.045,
    });
    // Chinese flagged words stay Chinese (alpaca-cot-zh-refine's lang: zh).
    expect(translateOne('flagged_words_filter', { lang: 'zh' }).params).toMatchObject({ lang: ['zh'] });
    expect(translateOne('stopwords_filter', { lang: 'vi' }).params).toMatchObject({ lang: ['vi'] });
    expect((translateOne('stopwords_filter', { lang: 'all' }).params['lang'] as string[]).length).toBe(58);
    expect(translateOne('document_deduplicator', null).params).toMatchObject({
      unicode: 'none',
      lowercase: false,
      stripPunctuation: false,
      whitespace: 'keep',
      checkIds: false,
    });
    expect(translateOne('document_minhash_deduplicator', null).params).toMatchObject({
      tokenizer: 'word',
      ngram: 5,
      permutations: 256,
      bands: 25,
      rows: 10,
      threshold: 0.7,
      verify: false,
    });
  });

  it('translates parameters with their meaning', () => {
    // Data-Juicer's optimiser picks the banding unless the recipe gives both bands and rows.
    expect(
      translateOne('document_minhash_deduplicator', { num_permutations: 128, num_rows_per_band: 4 }).params,
    ).toMatchObject({ permutations: 128, bands: 14, rows: 9 });
    expect(
      translateOne('document_minhash_deduplicator', {
        num_permutations: 100,
        num_bands: 20,
        num_rows_per_band: 5,
      }).params,
    ).toMatchObject({ bands: 20, rows: 5 });
    expect(translateOne('remove_specific_chars_mapper', { chars_to_remove: '◆]-^' }).params).toMatchObject({
      patterns: ['[◆\\]\\-\\^]'],
      replacement: '',
    });
    expect(
      translateOne('replace_content_mapper', { pattern: ['\\d+', 'foo'], repl: ['<n>', 'bar'] }).params,
    ).toMatchObject({ patterns: ['\\d+', 'foo'], replacement: ['<n>', 'bar'] });
    expect(translateOne('stopwords_filter', { lang: 'zh', min_ratio: 0.2 }).params).toMatchObject({
      lang: ['zh'],
      minRatio: 0.2,
    });
    expect(translateOne('average_line_length_filter', { max_len: 80 }).params).toMatchObject({
      minAverage: 10,
      maxAverage: 80,
    });
    expect(translateOne('clean_email_mapper', { repl: '<email>' }).params).toMatchObject({
      urls: false,
      emails: true,
      replacement: '<email>',
    });
  });

  it('translates the operators that landed with issue 21', () => {
    expect(translateOne('language_id_score_filter', { lang: 'zh', min_score: 0.6 }).params).toMatchObject({
      languages: ['zh'],
      minScore: 0.6,
      annotate: false,
    });
    expect(translateOne('language_id_score_filter', null).params).toMatchObject({
      languages: [],
      minScore: 0.8,
    });
    expect(translateOne('document_simhash_deduplicator', { tokenization: 'character' }).params).toMatchObject(
      {
        tokenizer: 'char',
        window: 6,
        hammingDistance: 4,
        blocks: 6,
      },
    );
    expect(translateOne('text_chunk_mapper', { max_len: 100, overlap_len: 5 }).params).toMatchObject({
      maxLen: 100,
      splitPattern: '\n\n',
      overlap: 5,
    });
  });

  it('accepts the runtime-only parameters every Data-Juicer op takes', () => {
    const step = translateOne('clean_html_mapper', { batch_size: 1000, num_proc: 4, mem_required: '2GB' });
    expect(step.op).toBe('strip_html');
    expect(Object.keys(DJ_RUNTIME_PARAMS.shape)).toContain('text_key');
  });

  it('is listed whole in docs/recipes.md: one row per Data-Juicer op, with its Winnow operator', () => {
    const doc = readFileSync(join(REPO_ROOT, 'docs', 'recipes.md'), 'utf8');
    for (const [dj, def] of Object.entries(DATA_JUICER_OPS)) {
      const line = doc.split('\n').find((l) => l.startsWith(`| \`${dj}\` |`));
      expect(line, dj).toBeDefined();
      expect(line).toContain(`\`${def.winnow}\``);
    }
  });
});
