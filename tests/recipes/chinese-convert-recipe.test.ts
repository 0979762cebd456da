import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { winnow } from '../helpers/cli.ts';
import { tempDir } from '../helpers/tmp.ts';

/**
 * chinese_convert_mapper through `winnow run` and `winnow convert`: Traditional text becomes
 * Simplified (t2s), so a Traditional copy of a Simplified row is then an exact duplicate;
 * English and Japanese kana pass unchanged.
 */
const RECIPE = `project_name: zh-convert
dataset_path: ./raw/rows.jsonl
export_path: ./out/rows.jsonl
process:
  - chinese_convert_mapper:
      mode: t2s
  - document_deduplicator:
`;
const ROWS = [
  { id: 'zh-s', text: '我们学习汉语，头发很长。' },
  { id: 'zh-t', text: '我們學習漢語，頭髮很長。' },
  { id: 'en', text: 'The library opens at nine on Saturdays.' },
  { id: 'ja', text: 'ありがとう、またね。國語' },
];

describe('chinese_convert_mapper in a Data-Juicer recipe', () => {
  it('runs: Traditional rows become Simplified (the copy is then a duplicate), English and kana unchanged', () => {
    const dir = tempDir('winnow-dj-opencc-');
    mkdirSync(join(dir, 'raw'));
    writeFileSync(join(dir, 'raw', 'rows.jsonl'), ROWS.map((r) => JSON.stringify(r)).join('\n'));
    writeFileSync(join(dir, 'recipe.yaml'), RECIPE);
    const r = winnow(['run', 'recipe.yaml', '--db', join(dir, 'db')], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    const out = readFileSync(join(dir, 'out', 'rows.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: string; text: string });
    expect(out).toEqual([
      { text: '我们学习汉语，头发很长。', id: 'zh-s' },
      { text: 'The library opens at nine on Saturdays.', id: 'en' },
      { text: 'ありがとう、またね。国语', id: 'ja' },
    ]);
    const c = winnow(['convert', 'recipe.yaml'], { cwd: dir });
    expect(c.code, c.stderr).toBe(0);
    expect(c.stdout).toContain('op: chinese_convert');
    expect(c.stdout).toContain('mode: t2s');
  }, 120_000);
});
