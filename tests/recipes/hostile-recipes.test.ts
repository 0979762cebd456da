import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { winnow, winnowInProcess } from '../helpers/cli.ts';
import { tempDir } from '../helpers/tmp.ts';

/**
 * Recipes Winnow must refuse before it writes anything: each exits 2 with one line naming the key,
 * the operator and its position; the database folder and export_path are left as they were.
 */
const HEAD = `project_name: hostile
dataset_path: ./data.jsonl
export_path: ./out/kept.jsonl
text_keys: text
`;

const GOOD_OPS = `  - whitespace_normalization_mapper:
  - text_length_filter:
      min_len: 5
`;

interface Case {
  name: string;
  recipe: string;
  /** Every one of these is in the error line. */
  says: string[];
  args?: string[];
}

const CASES: Case[] = [
  {
    name: 'an image operator',
    recipe: `${HEAD}process:\n${GOOD_OPS}  - image_aspect_ratio_filter:\n      min_ratio: 0.5\n`,
    says: [
      'process[2].image_aspect_ratio_filter',
      'operator 3 of 3',
      "Data-Juicer operator 'image_aspect_ratio_filter' is not supported (Winnow's task operators read text only)",
      'closest Winnow operator:',
    ],
  },
  {
    name: 'a misspelt operator',
    recipe: `${HEAD}process:\n  - text_lenght_filter:\n      min_len: 5\n`,
    says: [
      'process[0].text_lenght_filter',
      "Data-Juicer operator 'text_lenght_filter' is not supported",
      "closest Winnow operator: length_filter (Data-Juicer's text_length_filter)",
    ],
  },
  {
    name: 'an operator without a Winnow analog',
    // (perplexity_filter had none until this session: it is translated now.)
    recipe: `${HEAD}process:\n${GOOD_OPS}  - text_action_filter:\n      lang: en\n      min_action_num: 1\n`,
    says: [
      "process[2].text_action_filter: operator 3 of 3: Data-Juicer operator 'text_action_filter' is not supported",
    ],
  },
  {
    name: 'a parameter of the wrong type',
    recipe: `${HEAD}process:\n  - text_length_filter:\n      min_len: ten\n`,
    says: ['process[0].text_length_filter.min_len', 'number'],
  },
  {
    name: 'a misspelt parameter',
    recipe: `${HEAD}process:\n  - text_length_filter:\n      min_lenn: 5\n`,
    says: ['process[0].text_length_filter', 'min_lenn', 'min_len'],
  },
  {
    name: 'a parameter value Winnow cannot honour',
    recipe: `${HEAD}process:\n${GOOD_OPS}  - document_simhash_deduplicator:\n      tokenization: punctuation\n`,
    says: ['process[2].document_simhash_deduplicator.tokenization', "'punctuation' is not supported"],
  },
  {
    name: 'a Python pattern with no faithful JavaScript spelling',
    recipe: `${HEAD}process:\n  - document_simhash_deduplicator:\n      ignore_pattern: '[\\W_]'\n`,
    says: ['process[0].document_simhash_deduplicator.ignore_pattern', '\\W inside a character class'],
  },
  {
    name: 'a per-operator text_key other than text_keys[0]',
    recipe: `${HEAD}process:\n  - clean_html_mapper:\n      text_key: title\n`,
    says: ['process[0].clean_html_mapper.text_key', "'title' is not supported"],
  },
  {
    name: 'no dataset_path',
    recipe: `project_name: hostile\nexport_path: ./out/kept.jsonl\nprocess:\n${GOOD_OPS}`,
    says: ['dataset_path'],
  },
  {
    name: 'a dataset_path that does not exist',
    recipe: HEAD.replace('./data.jsonl', './missing.jsonl') + `process:\n${GOOD_OPS}`,
    says: ['dataset_path', 'no such file or folder', 'missing.jsonl'],
  },
  {
    name: 'an export format Data-Juicer does not write',
    recipe: HEAD.replace('./out/kept.jsonl', './out/kept.csv') + `process:\n${GOOD_OPS}`,
    says: ['export_path', ".csv'", '.parquet'],
  },
  {
    name: 'a misspelt top-level key',
    recipe: `${HEAD}export_shard_sise: 10\nprocess:\n${GOOD_OPS}`,
    says: ['export_shard_sise'],
  },
  {
    name: 'stats kept in the exported rows',
    recipe: `${HEAD}keep_stats_in_res_ds: true\nprocess:\n${GOOD_OPS}`,
    says: ['keep_stats_in_res_ds'],
  },
  {
    name: 'an entry naming two operators',
    recipe: `${HEAD}process:\n  - clean_html_mapper:\n    clean_email_mapper:\n`,
    says: ['process[0]', 'must name one operator', 'got 2 keys'],
  },
  {
    name: 'a flag for RFT runs',
    recipe: `${HEAD}process:\n${GOOD_OPS}`,
    args: ['--steps', '3'],
    says: ['--steps applies only to kind: rft', 'Data-Juicer recipe'],
  },
  {
    // Every issue of a part of the recipe is named, not the first and a count (issue 37).
    name: 'several wrong keys and values at the top level and in one operator',
    recipe: `${HEAD}npp: 3\nprocess:\n  - text_length_filter:\n      min_lenn: 5\n      max_len: many\n`,
    says: [
      '3 problems; nothing was run or written:',
      "npp: unknown key 'npp'",
      "process[0].text_length_filter.min_lenn: unknown key 'min_lenn'",
      'process[0].text_length_filter.max_len: expected a number, got a string',
    ],
  },
];

function project(recipe: string): string {
  const dir = tempDir('winnow-dj-hostile-');
  writeFileSync(
    join(dir, 'data.jsonl'),
    '{"text": "a perfectly fine row of text"}\n{"text": "another fine row"}\n',
  );
  writeFileSync(join(dir, 'recipe.yaml'), recipe);
  return dir;
}

describe('hostile Data-Juicer recipes exit 2 with one line, before anything is written', () => {
  // Through the CLI's main in this process (no Node start-up per case); the last two tests run
  // real `winnow` processes for the exit status and what reaches stderr.
  for (const c of CASES) {
    it(c.name, async () => {
      const dir = project(c.recipe);
      const r = await winnowInProcess(['run', 'recipe.yaml', '--db', join(dir, 'db'), ...(c.args ?? [])], {
        cwd: dir,
      });
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      const lines = r.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]!.startsWith('error: ')).toBe(true);
      for (const s of c.says) expect(lines[0]).toContain(s);
      expect(existsSync(join(dir, 'db'))).toBe(false);
      expect(existsSync(join(dir, 'out'))).toBe(false);
      expect(existsSync(join(dir, '.winnow'))).toBe(false);
    });
  }

  it('an export_path onto an existing file: refused, the file and the database untouched', () => {
    const dir = project(`${HEAD}process:\n${GOOD_OPS}`);
    mkdirSync(join(dir, 'out'));
    writeFileSync(join(dir, 'out', 'kept.jsonl'), 'precious\n');
    const r = winnow(['run', 'recipe.yaml', '--db', join(dir, 'db')], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain('export_path');
    expect(r.stderr).toContain(
      'already exists (pass --overwrite-export to replace it, or change export_path)',
    );
    expect(readFileSync(join(dir, 'out', 'kept.jsonl'), 'utf8')).toBe('precious\n');
    expect(existsSync(join(dir, 'db'))).toBe(false);
  });

  it('--overwrite-export on a Winnow pipeline is refused', () => {
    const dir = project('name: p\ninput: { path: data.jsonl }\nmapping: { taskset: t, prompt: text }\n');
    const r = winnow(['run', 'recipe.yaml', '--overwrite-export', '--db', join(dir, 'db')], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--overwrite-export applies only to kind: recipe');
  });
});
